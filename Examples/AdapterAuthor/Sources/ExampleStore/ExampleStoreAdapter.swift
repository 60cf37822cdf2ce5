public import Foundation
import HTTPTypes
public import OpenCatCore
public import StoreAdapters

/// A sixth, fictional store ("Example Store") written the way a third party would write an adapter: against the
/// public API of OpenCatCore and StoreAdapters only. Its receipts API answers `GET /v1/receipts/{id}` (header
/// `X-Example-Key`) with `{"receipt": {id, product, status: paid|pending|failed|refunded, amount, currency,
/// sandbox, buyer, created}}`.
///
/// ```swift
/// let adapter = ExampleStoreAdapter(baseURL: apiURL, key: Secret(apiKey), http: HTTPClient())
/// let purchase = try await adapter.verify(
///     PurchaseProof(store: ExampleStoreAdapter.exampleStore, kind: ExampleStoreAdapter.receiptKind,
///                   token: Secret("rcpt_paid1"), productId: "gems_500"))
/// ```
public struct ExampleStoreAdapter: StoreAdapter {
    /// The store's identifier (`examplestore`): not one of the five OpenCat knows, which ``Store`` allows.
    public static let exampleStore = Store(rawValue: "examplestore")
    /// The proof this store hands the app: a receipt id (`rcpt_` followed by letters and digits).
    public static let receiptKind = PurchaseProof.Kind(rawValue: "exampleReceipt")

    /// Where the receipts API is (`https://api.example-store.invalid`, or a mock server on loopback).
    public let baseURL: URL
    /// The API key sent as `X-Example-Key`.
    public let key: Secret<String>
    /// The HTTP client: OpenCat's timeouts and retries with back-off.
    public let http: HTTPClient

    /// Creates an adapter.
    /// - Parameters:
    ///   - baseURL: see ``baseURL``.
    ///   - key: see ``key``.
    ///   - http: see ``http``.
    public init(baseURL: URL, key: Secret<String>, http: HTTPClient) {
        self.baseURL = baseURL
        self.key = key
        self.http = http
    }

    /// ``exampleStore``.
    public var store: Store { Self.exampleStore }

    private struct Envelope: Decodable {
        struct Receipt: Decodable {
            var id: String
            var product: String
            var status: String
            var amount: String
            var currency: String
            var sandbox: Bool
            var buyer: String?
            var created: String
        }
        var receipt: Receipt
    }

    /// Looks the receipt up and maps it: `paid` → active, `pending` → pending, `refunded` → refunded, `failed` →
    /// ``StoreAdapterError/Code/notPaid``.
    /// - Parameter proof: a ``receiptKind`` proof; its `productId`, when set, must be the receipt's product.
    /// - Returns: the normalized purchase.
    /// - Throws: ``StoreAdapterError`` with the shared codes (`invalidProof` before any request for a token that is
    ///   not a receipt id; `unauthorized`, `notFound`, `rateLimited`, `storeUnavailable`, `timeout`, `network`,
    ///   `malformedResponse`, `productMismatch`, `notPaid`).
    public func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        let id = proof.token.revealed
        guard proof.kind == Self.receiptKind, id.hasPrefix("rcpt_"),
            id.dropFirst(5).allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }), id.count > 5
        else { throw error(.invalidProof, "not an Example Store receipt id") }
        var request = HTTPRequest(
            method: .get,
            scheme: baseURL.scheme,
            authority: baseURL.host.map { h in baseURL.port.map { "\(h):\($0)" } ?? h },
            path: "/v1/receipts/\(id)"
        )
        request.headerFields[HTTPField.Name("X-Example-Key")!] = key.revealed
        let response: HTTPTransportResponse
        do {
            response = try await http.send(request)
        } catch let failure as HTTPTransportError {
            throw error(failure.code == .timeout ? .timeout : .network, "Example Store unreachable")
        }
        switch response.status.code {
        case 200: break
        case 401, 403: throw error(.unauthorized, "key rejected", status: 401)
        case 404: throw error(.notFound, "no such receipt", status: 404)
        case 429: throw error(.rateLimited, "rate limited", status: 429)
        case 500...599: throw error(.storeUnavailable, "Example Store failing", status: response.status.code)
        default: throw error(.malformedResponse, "unexpected status", status: response.status.code)
        }
        guard let receipt = try? JSONDecoder().decode(Envelope.self, from: response.body).receipt,
            let price = Money(decimalString: receipt.amount, currency: receipt.currency),
            let created = try? Date(receipt.created, strategy: .iso8601)
        else { throw error(.malformedResponse, "unreadable receipt") }
        if let expected = proof.productId, expected != receipt.product {
            throw error(.productMismatch, "receipt is for another product")
        }
        let state: VerifiedPurchase.State
        switch receipt.status {
        case "paid": state = .active
        case "pending": state = .pending
        case "refunded": state = .refunded
        case "failed": throw error(.notPaid, "payment failed")
        default: throw error(.malformedResponse, "unknown receipt status")
        }
        return VerifiedPurchase(
            store: store,
            transactionId: receipt.id,
            productId: receipt.product,
            purchaser: receipt.buyer,
            purchaseDate: created,
            state: state,
            environment: receipt.sandbox ? .sandbox : .production,
            price: price,
            storeStatus: receipt.status
        )
    }

    private func error(_ code: StoreAdapterError.Code, _ message: String, status: Int? = nil) -> StoreAdapterError {
        StoreAdapterError(code, store: store, message, httpStatus: status)
    }
}
