import Foundation
import HTTPTypes
import Hummingbird
import OpenCatCore
import StoreAdapters

/// The OpenCat API (docs/api/opencat-server.md): what the SDK speaks in server mode.
extension OpenCatServerApplication {
    struct ReceiptBody: Decodable {
        var appUserId: String
        var store: String
        var kind: String
        var proof: String
        var productId: String?
        var transactionId: String?
        var context: [String: String]?
    }

    struct SubscriberAnswer: Encodable {
        struct Subscriber: Encodable {
            var appUserId: String
            var firstSeenAt: Date
            var transactions: [TransactionInfo]
            var entitlementMap: [String: [String]]
        }
        var requestDate: Date
        var subscriber: Subscriber
    }

    struct OfferingsAnswer: Encodable {
        var requestDate: Date
        var offerings: Offerings
    }

    /// The proof kinds each store's adapters accept in a receipt.
    static let receiptKinds: [String: Set<String>] = [
        "apple": ["appleSignedTransaction", "appleTransactionId", "appleSubscriptionStatus"],
        "google": ["googleProductPurchaseToken", "googleSubscriptionPurchaseToken"],
        "stripe": ["stripePaymentIntent", "stripeSubscription"],
        "paypal": ["paypalOrder", "paypalSubscription"],
        "steam": ["steamOrder", "steamTransaction", "steamAgreement"],
    ]

    func addOpenCatRoutes(to router: Router<BasicRequestContext>) {
        router.get("/v1/subscribers/:appUserId") { request, context in
            await answer {
                let api = try openCatAPI(request)
                return try await subscriber(appUserId: context.decoded("appUserId") ?? "", api)
            }
        }
        router.post("/v1/receipts") { request, _ in
            await answer {
                let api = try openCatAPI(request)
                let body = try await decode(ReceiptBody.self, request)
                guard !body.appUserId.isEmpty, body.appUserId.utf8.count <= 256 else {
                    throw Refusal(.badRequest, "invalid_input", "an app user id is required")
                }
                guard let kinds = Self.receiptKinds[body.store], kinds.contains(body.kind),
                    let adapter = adapters[Store(rawValue: body.store)]
                else {
                    throw Refusal(.unprocessableContent, "invalid_receipt", "this server does not verify that proof")
                }
                var proof = PurchaseProof(
                    store: Store(rawValue: body.store),
                    kind: PurchaseProof.Kind(rawValue: body.kind),
                    token: Secret(try field(body.proof)),
                    productId: body.productId,
                    transactionId: body.transactionId,
                    context: body.context ?? [:]
                )
                if settings.bindPurchases, ["google", "stripe", "paypal"].contains(body.store) {
                    proof.expectedPurchaser = body.appUserId
                }
                let purchase: VerifiedPurchase
                do { purchase = try await adapter.verify(proof) } catch { throw refused(error, store: adapter.store) }
                if let productId = body.productId, productId != purchase.productId {
                    throw Refusal(
                        .unprocessableContent,
                        "invalid_receipt",
                        "the proof is for another product",
                        reason: StoreAdapterError.Code.productMismatch.rawValue
                    )
                }
                try await ledger.record(purchase.transactionInfo, appUserId: body.appUserId)
                return try await subscriber(appUserId: body.appUserId, api)
            }
        }
        router.get("/v1/offerings") { request, _ in
            await answer {
                let api = try openCatAPI(request)
                return Self.json(.ok, OfferingsAnswer(requestDate: clock(), offerings: api.offerings))
            }
        }
    }

    func subscriber(appUserId: String, _ api: OpenCatAPISettings) async throws -> Response {
        guard !appUserId.isEmpty, appUserId.utf8.count <= 256 else {
            throw Refusal(.badRequest, "invalid_input", "an app user id is required")
        }
        let state = try await ledger.subscriber(appUserId)
        var map: [String: [String]] = [:]
        for transaction in state.transactions {
            if let entitlements = api.entitlements[transaction.productId] { map[transaction.productId] = entitlements }
        }
        return Self.json(
            .ok,
            SubscriberAnswer(
                requestDate: clock(),
                subscriber: .init(
                    appUserId: appUserId,
                    firstSeenAt: state.firstSeenAt,
                    transactions: state.transactions,
                    entitlementMap: map
                )
            )
        )
    }

    /// The OpenCat API's settings when the request carries one of the app's API keys; 404 when the API is off.
    func openCatAPI(_ request: Request) throws -> OpenCatAPISettings {
        guard let api = settings.openCat else { throw Refusal(.notFound, "not_found", "the OpenCat API is off") }
        guard let header = request.headers[.authorization], header.count > 7,
            header.prefix(7).lowercased() == "bearer ",
            api.apiKeySHA256.contains(BearerTokens.hash(String(header.dropFirst(7))))
        else {
            throw Refusal(.unauthorized, "unauthorized", "The API key is missing or wrong.")
        }
        return api
    }
}
