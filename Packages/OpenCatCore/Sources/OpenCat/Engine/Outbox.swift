import Foundation
import Logging
import OpenCatCore
import OpenCatStorage

/// The key of an outbox entry, which is also its server idempotency key: one scheme, always bound to the user.
///
/// A purchase is keyed by the store's transaction id (else its proof's fingerprint), so it is delivered at most
/// once; a store update (a refund reuses the purchase's transaction id) by its proof's fingerprint, so the
/// purchase's entry cannot swallow it.
struct OutboxID: Hashable, Sendable, CustomStringConvertible {
    let rawValue: String

    /// The id of a purchase.
    static func purchase(_ proof: PurchaseProof, user: String) -> OutboxID {
        OutboxID(rawValue: "\(user)|\(proof.deduplicationKey)")
    }

    /// The id of a store update (renewal, refund, purchase elsewhere).
    static func update(_ proof: PurchaseProof, user: String) -> OutboxID {
        OutboxID(rawValue: "\(user)|update|\(proof.store.rawValue):#\(proof.fingerprint)")
    }

    var description: String { "outbox entry" }
}

/// A proof as kept in the outbox (sealed by the cache).
struct OutboxPayload: Codable, Sendable {
    var store: Store
    var kind: PurchaseProof.Kind
    var token: String
    var productId: String?
    var transactionId: String?
    var context: [String: String]

    init(_ proof: PurchaseProof) {
        store = proof.store
        kind = proof.kind
        token = proof.token.revealed
        productId = proof.productId
        transactionId = proof.transactionId
        context = proof.context
    }

    var proof: PurchaseProof {
        PurchaseProof(
            store: store,
            kind: kind,
            token: Secret(token),
            productId: productId,
            transactionId: transactionId,
            context: context
        )
    }
}

/// The SDK's outbox: proofs still to be delivered, in the `opencat` namespace of the encrypted cache, owned by the
/// app user who bought them (another user's sync never sees them; they wait until that user returns).
///
/// Failures that waiting does not cure (the server refused the credentials, answered something unreadable) count
/// towards a stall (see `DurableOutbox`); network failures, 429 and 5xx do not: an offline device
/// never stalls a paid purchase.
typealias Outbox = DurableOutbox<OutboxPayload>

extension DurableOutbox where Payload == OutboxPayload {
    /// The namespace of the SDK's entries.
    static var sdkNamespace: String { "opencat" }

    /// Saves a proof for a user; returns whether it is now in the outbox (newly or already). A failure is logged
    /// and counted by the outbox.
    @discardableResult
    func save(_ proof: PurchaseProof, id: OutboxID, owner: String) -> Bool {
        do {
            try enqueue(OutboxPayload(proof), id: id.rawValue, owner: owner)
            return true
        } catch {
            return false
        }
    }
}
