import Foundation
import HTTPTypes
public import OpenCatCore

/// The App Store Server API's operations: a customer's transaction and refund history (v2), a subscription's
/// renewal date extended alone or for every subscriber of a product, and an order id from a customer's e-mail
/// receipt looked up. Every signed transaction Apple answers with is verified and mapped as ``verify(_:)`` does.
///
/// Calls by transaction id ask production first and the sandbox when Apple answers 4040010, unless
/// ``Configuration/environment`` restricts to one, as look-ups do. Calls without a transaction (an order id, a
/// product's mass extension) go to production, or to the sandbox when the adapter is configured for it alone.
extension AppleStoreAdapter: StoreOperations {
    /// Supported: transaction history, refund history, extending one or every subscription, order look-up,
    /// consumption information, notification history, test notifications, setting an app account token, finishing
    /// a transaction (acknowledge) and reading the app transaction.
    public func support(for operation: StoreOperation) -> StoreOperationSupport {
        switch operation {
        case .transactionHistory, .refundHistory, .extendSubscription, .extendAllSubscriptions, .lookUpOrder,
            .sendConsumption, .notificationHistory, .testNotification, .setAppAccountToken, .acknowledge,
            .appTransaction, .subscriptions:
            return .supported
        case .refundStatus:
            return .unsupported(
                "the App Store gives a refund no id of its own; refund-history lists refunded purchases"
            )
        case .refund:
            return .unsupported(
                "the App Store refunds only at the customer's request; send consumption information instead"
            )
        case .cancelSubscription:
            return .unsupported("only the customer cancels an App Store subscription, in their account settings")
        case .consume:
            return .unsupported(
                "the App Store has no consume call: a consumable is finished (acknowledge) and can be bought again"
            )
        case .revoke:
            return .unsupported("only Apple revokes App Store purchases")
        case .suspendSubscription, .resumeSubscription:
            return .unsupported("only the customer manages an App Store subscription")
        case .refunds, .cancelRefund, .invoices: return .unsupported("only Stripe offers \(operation)")
        case .lookUpOrders, .productPurchase: return .unsupported("only Google Play offers \(operation)")
        default:
            return .unsupported("the App Store has no \(operation) operation")
        }
    }

    /// The customer's transactions, newest first (Get Transaction History v2,
    /// `GET /inApps/v2/history/{transactionId}?sort=DESCENDING&revision=…`).
    /// - Parameters:
    ///   - customer: any transaction id of the customer (digits).
    ///   - cursor: the `revision` of the previous page, `nil` for the first.
    ///   - limit: ignored: Apple answers pages of up to 20 transactions.
    /// - Returns: the page's purchases, mapped as ``verify(_:)`` maps a signed transaction (without renewal
    ///   info); the next cursor is Apple's `revision` while `hasMore`.
    /// - Throws: ``StoreAdapterError``: `invalidProof` (not a transaction id, or a bad signed transaction),
    ///   `notFound` (4040010 in every environment asked), `wrongApplication`, `unauthorized`, `rateLimited`,
    ///   `storeUnavailable`, `timeout`, `network`, `malformedResponse`.
    public func transactionHistory(customer: String, cursor: String?, limit: Int) async throws -> PurchasePage {
        try Self.checkedTransactionId(customer)
        var query = [("sort", "DESCENDING")]
        if let cursor { query.append(("revision", cursor)) }
        let answer = try await askingEachEnvironment { api, _, baseURL in
            try await fetch(
                AppStore.HistoryResponse.self,
                api.call(.get, "/inApps/v2/history/" + customer, query: query, baseURL: baseURL),
                api: api
            )
        }
        if let bundleId = answer.bundleId, bundleId != configuration.bundleId {
            throw StoreAdapterError(
                .wrongApplication,
                store: .apple,
                "the transaction history belongs to another app (bundle id)",
                storeReason: "bundleIdMismatch"
            )
        }
        return PurchasePage(
            purchases: try await purchases(answer.signedTransactions),
            nextCursor: answer.hasMore == true ? answer.revision : nil
        )
    }

    /// The customer's refunded transactions, newest first (Get Refund History v2,
    /// `GET /inApps/v2/refund/lookup/{transactionId}?revision=…`), each mapped as ``verify(_:)`` maps it.
    /// - Parameters:
    ///   - transactionId: any transaction id of the customer (digits).
    ///   - cursor: the `revision` of the previous page, `nil` for the first.
    /// - Throws: ``StoreAdapterError`` as ``transactionHistory(customer:cursor:limit:)``.
    public func refundHistory(transactionId: String, cursor: String?) async throws -> PurchasePage {
        try Self.checkedTransactionId(transactionId)
        let query = cursor.map { [("revision", $0)] } ?? []
        let answer = try await askingEachEnvironment { api, _, baseURL in
            try await fetch(
                AppStore.RefundHistoryResponse.self,
                api.call(.get, "/inApps/v2/refund/lookup/" + transactionId, query: query, baseURL: baseURL),
                api: api
            )
        }
        return PurchasePage(
            purchases: try await purchases(answer.signedTransactions),
            nextCursor: answer.hasMore == true ? answer.revision : nil
        )
    }

    /// Moves a subscription's renewal date later (Extend a Subscription Renewal Date,
    /// `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}` with `extendByDays`, `extendReasonCode` and
    /// `requestIdentifier`), then reads the subscription again with Get All Subscription Statuses.
    ///
    /// The proof is verified first (it names the subscription, its environment and its original transaction id).
    /// - Returns: the subscription as ``verify(_:)`` reads it now (`appleSubscriptionStatus` of its original
    ///   transaction id, with the proof's product and expected purchaser).
    /// - Throws: ``StoreAdapterError``: `invalidProof` (days outside 1...90, not a subscription, a bad proof,
    ///   4030004 ineligible state, 4030005 the most extensions Apple allows, 4030007 Family Sharing member, Apple's
    ///   `success: false`), `notFound` (4040005), and whatever ``verify(_:)`` throws. Apple has no "extended
    ///   already" answer: each new request identifier extends again, up to its limit.
    public func extendSubscription(_ proof: PurchaseProof, by change: StoreExtension) async throws
        -> VerifiedPurchase
    {
        try Self.checkExtension(change)
        let subscription = try await verify(proof)
        guard subscription.expirationDate != nil else {
            throw StoreAdapterError(
                .invalidProof,
                store: .apple,
                "only an auto-renewable subscription's renewal date can be extended",
                storeReason: "notSubscription"
            )
        }
        let originalTransactionId = subscription.originalTransactionId ?? subscription.transactionId
        try Self.checkedTransactionId(originalTransactionId)
        let api = try serverAPI()
        let baseURL =
            subscription.environment == .production ? configuration.productionBaseURL : configuration.sandboxBaseURL
        let answer = try await fetch(
            AppStore.ExtendRenewalDateResponse.self,
            api.call(
                .put,
                "/inApps/v1/subscriptions/extend/" + originalTransactionId,
                body: AppStore.ExtendRenewalDateRequest(
                    extendByDays: change.days,
                    extendReasonCode: change.reason.rawValue,
                    requestIdentifier: change.requestIdentifier
                ),
                idempotent: true,
                baseURL: baseURL
            ),
            api: api
        )
        guard answer.success == true else {
            throw StoreAdapterError(
                .invalidProof,
                store: .apple,
                "the App Store did not extend the subscription's renewal date",
                storeReason: "extensionNotApplied",
                httpStatus: 200
            )
        }
        return try await verify(
            PurchaseProof(
                store: .apple,
                kind: .appleSubscriptionStatus,
                token: Secret(originalTransactionId),
                productId: proof.productId,
                expectedPurchaser: proof.expectedPurchaser
            )
        )
    }

    /// Extends the renewal date of every eligible active subscriber of a product (Extend Subscription Renewal
    /// Dates for All Active Subscribers, `POST /inApps/v1/subscriptions/extend/mass`). Apple works through them
    /// later; ask ``massExtensionStatus(productId:requestIdentifier:)`` how far it got.
    /// - Parameters:
    ///   - productId: the auto-renewable subscription's product id.
    ///   - change: days (1...90), reason and request identifier.
    ///   - storefrontCountryCodes: the storefronts (ISO 3166-1 alpha-3, `USA`) to limit it to; empty for all.
    /// - Returns: the request identifier to ask the status with.
    /// - Throws: ``StoreAdapterError``: `invalidProof` (days, product id or a storefront code not valid, or Apple
    ///   refused the request), `unauthorized`, `rateLimited`, `storeUnavailable`, `timeout`, `network`,
    ///   `malformedResponse`.
    public func extendAllSubscriptions(
        productId: String,
        by change: StoreExtension,
        storefrontCountryCodes: [String]
    ) async throws -> String {
        try Self.checkExtension(change)
        try Self.checkProductId(productId)
        try Self.checkRequestIdentifier(change.requestIdentifier)
        guard storefrontCountryCodes.count <= 300,
            storefrontCountryCodes.allSatisfy({ $0.utf8.count == 3 && $0.utf8.allSatisfy(Self.isASCIILetter) })
        else {
            throw StoreAdapterError(
                .invalidProof,
                store: .apple,
                "a storefront country code is not an ISO 3166-1 alpha-3 code",
                storeReason: "invalidStorefrontCountryCode"
            )
        }
        let api = try serverAPI()
        let answer = try await fetch(
            AppStore.MassExtendRenewalDateResponse.self,
            api.call(
                .post,
                "/inApps/v1/subscriptions/extend/mass",
                body: AppStore.MassExtendRenewalDateRequest(
                    extendByDays: change.days,
                    extendReasonCode: change.reason.rawValue,
                    productId: productId,
                    requestIdentifier: change.requestIdentifier,
                    storefrontCountryCodes: storefrontCountryCodes.isEmpty
                        ? nil : storefrontCountryCodes.map { $0.uppercased() }
                ),
                idempotent: true,
                baseURL: defaultBaseURL
            ),
            api: api
        )
        guard let identifier = answer.requestIdentifier, !identifier.isEmpty else { return change.requestIdentifier }
        return identifier
    }

    /// Whether a request to extend every subscriber of a product has completed, and how many subscriptions it
    /// extended (Get Status of Subscription Renewal Date Extensions,
    /// `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`).
    /// - Throws: ``StoreAdapterError``: `invalidProof` (product id or request identifier not valid), `notFound`
    ///   (4040009: no such request), `unauthorized`, `rateLimited`, `storeUnavailable`, `timeout`, `network`,
    ///   `malformedResponse`.
    public func massExtensionStatus(productId: String, requestIdentifier: String) async throws
        -> AppStore.MassExtensionStatus
    {
        try Self.checkProductId(productId)
        try Self.checkRequestIdentifier(requestIdentifier)
        let api = try serverAPI()
        var status = try await fetch(
            AppStore.MassExtensionStatus.self,
            api.call(
                .get,
                "/inApps/v1/subscriptions/extend/mass/\(productId)/\(requestIdentifier)",
                baseURL: defaultBaseURL
            ),
            api: api
        )
        if status.requestIdentifier.isEmpty { status.requestIdentifier = requestIdentifier }
        return status
    }

    /// The In-App Purchases of an order id from a customer's e-mail receipt (Look Up Order ID,
    /// `GET /inApps/v1/lookup/{orderId}`; Apple offers it in production only), each mapped as ``verify(_:)`` maps
    /// it.
    /// - Parameter orderId: the order id (letters and digits).
    /// - Throws: ``StoreAdapterError``: `invalidProof` (not an order id, or a bad signed transaction), `notFound`
    ///   (Apple's status 1, `storeReason` `orderIdInvalid`), `wrongApplication`, `unauthorized`, `rateLimited`,
    ///   `storeUnavailable`, `timeout`, `network`, `malformedResponse`.
    public func lookUpOrder(orderId: String) async throws -> [VerifiedPurchase] {
        guard !orderId.isEmpty, orderId.utf8.count <= 64,
            orderId.utf8.allSatisfy({ Self.isASCIILetter($0) || (0x30...0x39).contains($0) })
        else {
            throw StoreAdapterError(
                .invalidProof,
                store: .apple,
                "the order id is not an App Store order id",
                storeReason: "invalidOrderId"
            )
        }
        let api = try serverAPI()
        let answer = try await fetch(
            AppStore.OrderLookupResponse.self,
            api.call(.get, "/inApps/v1/lookup/" + orderId, baseURL: defaultBaseURL),
            api: api
        )
        switch answer.status {
        case 0?:
            return try await purchases(answer.signedTransactions)
        case 1?:
            throw StoreAdapterError(
                .notFound,
                store: .apple,
                "the App Store does not know this order id for this app",
                storeReason: "orderIdInvalid",
                httpStatus: 200
            )
        default:
            throw StoreAdapterError(
                .malformedResponse,
                store: .apple,
                "unknown order lookup status",
                storeReason: answer.status.map(String.init) ?? "missing",
                httpStatus: 200
            )
        }
    }

    /// The customer's app transaction — their purchase or download of the app itself — by any of their transaction
    /// ids for the app, original transaction ids or app transaction id (Apple's "Get App Transaction Info",
    /// `GET /inApps/v1/transactions/appTransactions/{transactionId}`;
    /// <https://developer.apple.com/documentation/appstoreserverapi/get-app-transaction-info>).
    ///
    /// Production is asked first, then the sandbox (an id lives in one environment; 4040010 or 4040019 moves on). The
    /// signed app transaction is verified like any App Store signed data (chain, signature, Apple's root) and must be
    /// for the configured bundle id and an accepted environment.
    /// - Throws: ``StoreAdapterError``: `notFound` (4040010 transaction id not found, 4040019 no app transaction, in
    ///   every environment asked), `invalidProof` (an id that is not an App Store id, an unverifiable signature),
    ///   `wrongApplication`, and the App Store Server API's usual errors.
    public func appTransactionInfo(transactionId: String) async throws -> JWSAppTransactionDecodedPayload {
        let id = try Self.checkedTransactionId(transactionId)
        let notHere: Set<Int64> = [
            AppStoreServerAPI.ErrorCode.transactionIdNotFound, AppStoreServerAPI.ErrorCode.appTransactionDoesNotExist,
        ]
        let signed = try await askingEachEnvironment(fallbackOn: notHere) { api, _, baseURL in
            let answer = try fetch(
                AppStore.AppTransactionInfoResponse.self,
                try await api.call(.get, "/inApps/v1/transactions/appTransactions/" + id, baseURL: baseURL),
                api: api
            )
            guard let signed = answer.signedAppTransactionInfo, !signed.revealed.isEmpty else {
                throw StoreAdapterError(
                    .malformedResponse,
                    store: .apple,
                    "the App Store answered without signedAppTransactionInfo",
                    httpStatus: 200
                )
            }
            return signed
        }
        let appTransaction = try await verifier.verify(signed, as: JWSAppTransactionDecodedPayload.self)
        try checkApplication(
            bundleId: appTransaction.bundleId,
            environment: ApplePurchaseMapping.environment(appTransaction.rawReceiptType),
            what: "app transaction"
        )
        return appTransaction
    }

    /// Finishes a transaction (Apple's "Finish Transaction", `POST /inApps/v1/transactions/{transactionId}/finish`;
    /// <https://developer.apple.com/documentation/appstoreserverapi/finish-transaction>): tells the App Store that
    /// the server delivered the purchase, the server's counterpart of StoreKit's `Transaction.finish()`. The proof is
    /// verified first (a signed transaction locally; a transaction id through Get Transaction Info), the call goes to
    /// the transaction's environment, and the purchase is returned as verified, `finalizedByAdapter` set. Apple
    /// answers without a body; 4040010 is ``StoreAdapterError/Code/notFound``. Finishing is harmless to repeat, so a
    /// failed attempt is retried.
    public func acknowledge(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        var purchase = try await verify(proof)
        let id = try Self.checkedTransactionId(purchase.transactionId)
        let api = try serverAPI()
        let baseURL =
            purchase.environment == .production ? configuration.productionBaseURL : configuration.sandboxBaseURL
        let response = try await api.call(
            .post,
            "/inApps/v1/transactions/" + id + "/finish",
            idempotent: true,
            baseURL: baseURL
        )
        guard (200..<300).contains(response.status.code) else { throw api.error(for: response) }
        purchase.finalizedByAdapter = true
        return purchase
    }

    // MARK: - Plumbing

    /// A 200 answer decoded, anything else mapped with ``AppStoreServerAPI/error(for:)``.
    private func fetch<Body: Decodable>(
        _ type: Body.Type,
        _ response: HTTPTransportResponse,
        api: AppStoreServerAPI
    ) throws -> Body {
        guard response.status.code == 200 else { throw api.error(for: response) }
        return try http.decode(Body.self, from: response.body)
    }

    /// Every signed transaction verified and mapped as ``verify(_:)`` maps one (no renewal info, no product check).
    private func purchases(_ signedTransactions: [Secret<String>]?) async throws -> [VerifiedPurchase] {
        let signed = signedTransactions ?? []
        guard signed.count <= 1_000 else {
            throw StoreAdapterError(.malformedResponse, store: .apple, "too many signed transactions in one page")
        }
        var purchases: [VerifiedPurchase] = []
        for jws in signed {
            let transaction = try await verifiedTransaction(jws)
            purchases.append(try purchase(transaction: transaction, renewalInfo: nil, expectedProductId: nil))
        }
        return purchases
    }

    private static func checkExtension(_ change: StoreExtension) throws {
        guard (1...90).contains(change.days) else {
            throw StoreAdapterError(
                .invalidProof,
                store: .apple,
                "the App Store extends a renewal date by 1 to 90 days",
                storeReason: "invalidExtendByDays"
            )
        }
        guard !change.requestIdentifier.isEmpty, change.requestIdentifier.utf8.count <= 128 else {
            throw StoreAdapterError(
                .invalidProof,
                store: .apple,
                "the extension's request identifier is empty or too long",
                storeReason: "invalidRequestIdentifier"
            )
        }
    }

    /// A product id as App Store Connect allows one (letters, digits, `.`, `_`, `-`), safe in a path.
    private static func checkProductId(_ productId: String) throws {
        guard !productId.isEmpty, productId.utf8.count <= 255,
            productId.utf8.allSatisfy({
                isASCIILetter($0) || (0x30...0x39).contains($0) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
            })
        else {
            throw StoreAdapterError(
                .invalidProof,
                store: .apple,
                "the product id is not an App Store product id",
                storeReason: "invalidProductId"
            )
        }
    }

    /// A request identifier safe in a path (a UUID: letters, digits and `-`).
    private static func checkRequestIdentifier(_ identifier: String) throws {
        guard !identifier.isEmpty, identifier.utf8.count <= 128,
            identifier.utf8.allSatisfy({ isASCIILetter($0) || (0x30...0x39).contains($0) || $0 == 0x2D })
        else {
            throw StoreAdapterError(
                .invalidProof,
                store: .apple,
                "the request identifier is not a UUID",
                storeReason: "invalidRequestIdentifier"
            )
        }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
