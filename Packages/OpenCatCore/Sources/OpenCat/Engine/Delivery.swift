import Foundation
import OpenCatCore
import OpenCatServerAPI

/// Delivers one proof to the backend: verifies it on the device or posts it to the server. Pure of SDK state: the
/// outcome says what to apply, and ``SDKCore`` applies it.
struct Delivery: Sendable {
    /// What a delivery came to.
    enum Outcome: Sendable {
        /// The verifier confirmed the transaction.
        case verified(VerifiedTransaction)
        /// The server took the proof and answered with the subscriber; the transaction it proves, if listed.
        case posted(ServerAPI.SubscriberResponse, TransactionInfo?)
        /// Not delivered now; kept for later. `counted`: a failure that waiting does not cure (it counts towards
        /// stalling the entry), as opposed to no network, 429 or 5xx.
        case deferred(any Error, counted: Bool)
        /// Refused for good: a verdict on the proof itself.
        case rejected(any Error)
    }

    let backend: Backend
    let appUserId: String

    func deliver(_ proof: PurchaseProof, id: OutboxID) async -> Outcome {
        switch backend {
        case .verifier(let verifier, _, _):
            do { return .verified(try await verifier.verifyPurchase(proof)) } catch {
                return Self.isTransient(error) ? .deferred(error, counted: false) : .rejected(error)
            }
        case .server(let server):
            let post = ServerAPI.ReceiptPost(
                appUserId: appUserId,
                store: proof.store,
                kind: proof.kind,
                proof: proof.token.revealed,
                productId: proof.productId,
                transactionId: proof.transactionId,
                context: proof.context.isEmpty ? nil : proof.context
            )
            do {
                let response = try await server.postReceipt(post, idempotencyKey: id.rawValue)
                let transaction = response.subscriber.transactions.first {
                    proof.transactionId != nil && $0.transactionId == proof.transactionId
                }
                return .posted(response, transaction)
            } catch let error as OpenCatServerError where error.isVerdict {
                return .rejected(error)
            } catch {
                // Only the server's verdict on the proof is final; 401, 403, 404, 408, 409, an unreadable answer or
                // no answer keep the paid purchase in the outbox. Those that waiting does not cure are counted.
                return .deferred(error, counted: !Self.isTransient(error))
            }
        }
    }

    /// Whether a later attempt may succeed without anything changing but time.
    static func isTransient(_ error: any Error) -> Bool {
        if let error = error as? any TransientErrorClassifying { return error.isTransient }
        return error is CancellationError
    }

    /// A short, secret-free reason for logs.
    static func reason(_ error: any Error) -> String {
        if let error = error as? OpenCatError { return error.code.rawValue }
        if let error = error as? OpenCatServerError { return "HTTP \(error.status)" }
        if let error = error as? HTTPTransportError { return error.code.rawValue }
        return String(describing: type(of: error))
    }
}
