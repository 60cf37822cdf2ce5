import Foundation
import HTTPTypes
import Logging
import OpenCatCore

extension AppleStoreAdapter {
    /// Verifies a subscription from Apple's own answer (`PurchaseProof/Kind/appleSubscriptionStatus`: the token is
    /// the subscription's original transaction id, or its latest transaction id) with Get All Subscription Statuses, production first, then the
    /// sandbox on 4040010. Every signed transaction and renewal info in the answer is verified like any JWS; the
    /// one for the proof's (original) transaction id is mapped, and Apple's status decides the state: 1 active,
    /// 2 expired, 3 billing retry, 4 grace period (until the renewal info's `gracePeriodExpiresDate`), 5 revoked
    /// (refunded). Whether it renews comes from the renewal info's `autoRenewStatus`.
    func verifySubscriptionStatus(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        _ = try serverAPI()
        let id = try Self.checkedTransactionId(proof.token.revealed)
        let answer = try await askingEachEnvironment { api, _, baseURL in
            try await api.subscriptionStatuses(transactionId: id, baseURL: baseURL)
        }
        let purchase = try await purchase(from: answer, transactionId: id, expectedProductId: proof.productId)
        return try Self.checkPurchaser(of: purchase, expected: proof.expectedPurchaser)
    }

    func purchase(from answer: AppStore.StatusResponse, transactionId: String, expectedProductId: String?)
        async throws -> VerifiedPurchase
    {
        for item in try Self.listed(answer) {
            guard let signed = item.signedTransactionInfo else { continue }
            let transaction = try await verifiedTransaction(signed)
            // The endpoint lists every subscription of the customer: only the proof's own one is mapped.
            guard transaction.originalTransactionId == transactionId || transaction.transactionId == transactionId
            else { continue }
            return try await purchase(of: item, transaction: transaction, expectedProductId: expectedProductId)
        }
        throw StoreAdapterError(.notFound, store: .apple, "the App Store listed no status for this transaction")
    }

    /// Every subscription of the customer a transaction id belongs to, in every subscription group, as Get All
    /// Subscription Statuses lists them (`GET /inApps/v1/subscriptions/{transactionId}`, production then the sandbox
    /// on 4040010), each mapped as ``verify(_:)`` maps an `appleSubscriptionStatus` proof.
    /// - Parameter status: only the subscriptions in these statuses (Apple's `status` query, repeated); every one
    ///   when empty.
    /// - Throws: ``StoreAdapterError``: `notFound`, `invalidProof` (an id that is not an App Store id, signed data
    ///   that does not verify), `malformedResponse` (an unknown status), and the App Store Server API's usual errors.
    public func subscriptionStatuses(transactionId: String, status: Set<AppStore.SubscriptionStatus> = [])
        async throws -> [VerifiedPurchase]
    {
        _ = try serverAPI()
        let id = try Self.checkedTransactionId(transactionId)
        let filter = status.map(\.rawValue).sorted()
        let answer = try await askingEachEnvironment { api, _, baseURL in
            try await api.subscriptionStatuses(transactionId: id, status: filter, baseURL: baseURL)
        }
        var purchases: [VerifiedPurchase] = []
        for item in try Self.listed(answer) {
            guard let signed = item.signedTransactionInfo else { continue }
            let transaction = try await verifiedTransaction(signed)
            purchases.append(try await purchase(of: item, transaction: transaction, expectedProductId: nil))
        }
        return purchases
    }

    /// Every subscription of the customer a transaction id belongs to (``subscriptionStatuses(transactionId:status:)``
    /// in every status), as one page: Apple answers them all at once, so `cursor` and `limit` are not used.
    public func subscriptions(customer: String, cursor: String?, limit: Int) async throws -> PurchasePage {
        PurchasePage(purchases: try await subscriptionStatuses(transactionId: customer), nextCursor: nil)
    }

    /// Every subscription an answer lists, in every group (at most 1000).
    private static func listed(_ answer: AppStore.StatusResponse) throws -> [AppStore.StatusResponse.LastTransaction] {
        let items = (answer.data ?? []).flatMap { $0.lastTransactions ?? [] }
        guard items.count <= 1_000 else {
            throw StoreAdapterError(.malformedResponse, store: .apple, "too many subscription statuses")
        }
        return items
    }

    /// One listed subscription: its transaction and renewal info, Apple's status deciding the state.
    private func purchase(
        of item: AppStore.StatusResponse.LastTransaction,
        transaction: JWSTransactionDecodedPayload,
        expectedProductId: String?
    ) async throws -> VerifiedPurchase {
        let renewal = try await item.signedRenewalInfo.asyncMap {
            try await verifiedRenewalInfo($0, for: transaction)
        }
        var purchase = try purchase(
            transaction: transaction,
            renewalInfo: renewal,
            expectedProductId: expectedProductId
        )
        guard let status = item.status.flatMap(AppStore.SubscriptionStatus.init(rawValue:)) else {
            throw StoreAdapterError(
                .malformedResponse,
                store: .apple,
                "unknown subscription status",
                storeReason: item.status.map(String.init) ?? "missing"
            )
        }
        switch status {
        case .active: purchase.state = .active
        case .expired: purchase.state = .expired
        case .billingRetry: purchase.state = .billingRetry
        case .gracePeriod:
            purchase.state = .gracePeriod
            purchase.gracePeriodExpirationDate =
                renewal?.gracePeriodExpiresDate ?? purchase.gracePeriodExpirationDate
        case .revoked: purchase.state = .refunded
        }
        if status != .active, status != .gracePeriod, status != .billingRetry { purchase.willRenew = false }
        purchase.storeStatus = "status=\(status.rawValue)"
        return purchase
    }
}
