import Foundation
import HTTPTypes
import Logging
import OpenCatCore

/// Steam's operations, on `ISteamMicroTxn` (or `ISteamMicroTxnSandbox`):
///
/// - refund: `RefundTxn/v2` refunds a whole order (Steam has no partial refund);
/// - cancel: `CancelAgreement/v1` ends a recurring billing agreement's payments;
/// - history: `GetUserAgreementInfo/v1` lists a user's billing agreements for the app (Steam has no per-user list of
///   one-time orders: `GetReport` covers the whole app by time);
/// - extend: `AdjustAgreement/v1` moves a Steam-billed agreement's next payment later.
///
/// Each returns the purchase as ``verify(_:)`` reads it afterwards (`QueryTxn` for an order, `GetUserAgreementInfo`
/// for an agreement). See <https://partner.steamgames.com/doc/webapi/ISteamMicroTxn>.
extension SteamAdapter: StoreOperations {
    /// Refund, cancel, history and extend; every other operation with the reason Steam lacks it (the operations
    /// section's n.a. reasons).
    public func support(for operation: StoreOperation) -> StoreOperationSupport {
        switch operation {
        case .refund, .cancelSubscription, .transactionHistory, .extendSubscription:
            .supported
        case .refundHistory, .refundStatus:
            .unsupported("Steam keeps no refunds by user or by id; GetReport lists them by time")
        case .subscriptions:
            .unsupported("a user's agreements are Steam's history (GetUserAgreementInfo)")
        case .extendAllSubscriptions:
            .unsupported("Steam has no mass extension")
        case .consume:
            .unsupported("Steam finalizes an order once; it has nothing to consume")
        case .acknowledge:
            .unsupported("Steam's FinalizeTxn, which verify performs, is its acknowledgement")
        case .revoke:
            .unsupported("Steam cancels an agreement and refunds orders separately (cancel, refund)")
        case .suspendSubscription, .resumeSubscription:
            .unsupported("Steam agreements have no paused state")
        case .lookUpOrder:
            .unsupported("a Steam order id is the proof verify reads (QueryTxn)")
        case .sendConsumption, .notificationHistory, .testNotification, .setAppAccountToken, .appTransaction:
            .unsupported("only the App Store offers \(operation)")
        case .refunds, .cancelRefund, .invoices: .unsupported("only Stripe offers \(operation)")
        case .lookUpOrders, .productPurchase: .unsupported("only Google Play offers \(operation)")
        default:
            .unsupported("Steam has no \(operation) operation")
        }
    }

    // MARK: - Refund

    /// Refunds a whole order with `RefundTxn/v2` (`orderid`, `appid`), then reads it again with `QueryTxn` as
    /// ``verify(_:)`` does (through `request.proof` when it is a `.steamOrder` or `.steamTransaction` proof, else by
    /// the order id).
    ///
    /// `request.transactionId` is the partner's 64-bit order id (the one `InitTxn` was given). The order is read
    /// first (`QueryTxn`): an unknown order is ``StoreAdapterError/Code/notFound``; one that is `Refunded`,
    /// `Chargedback`, `RefundedSuspectedFraud` or `RefundedFriendlyFraud` already is
    /// ``StoreAdapterError/Code/alreadyDone`` (Steam documents no error code for "already refunded", so the status
    /// decides); one that was never paid (`Init`, `Approved` but not finalized, `Failed`) is
    /// ``StoreAdapterError/Code/notPaid``. Steam refunds the full value of an order only: an `amount` other than the
    /// order's full value (the sum of its items' `amount`, in cents without VAT, in the order's currency: what
    /// ``verify(_:)`` reports as the price of a one-item order) is ``StoreAdapterError/Code/invalidProof``, before
    /// anything is refunded. `request.idempotencyKey` is not sent: Steam takes none, and a repeated `RefundTxn` cannot
    /// refund twice (if it fails, the order is read again: refunded by then → ``StoreAdapterError/Code/alreadyDone``).
    public func refund(_ request: StoreRefundRequest) async throws -> VerifiedPurchase {
        let orderId = request.transactionId
        guard Self.isUInt64(orderId) else {
            throw StoreAdapterError(
                .invalidProof,
                store: .steam,
                "a Steam refund names the order by its 64-bit order id"
            )
        }
        let order = try await queryTxn(parameter: "orderid", id: orderId).0
        if let status = order.status, Self.fullReversals.contains(status) {
            throw StoreAdapterError(
                .alreadyDone,
                store: .steam,
                "the order is refunded or reversed already",
                storeReason: status.rawValue
            )
        }
        if let status = order.status, Self.unpaid.contains(status) {
            throw StoreAdapterError(
                .notPaid,
                store: .steam,
                "the order was never paid (not finalized), so there is nothing to refund",
                storeReason: status.rawValue
            )
        }
        if let amount = request.amount {
            let full = SteamPurchaseMapping.total(of: order.items ?? [], currency: order.currency)
            guard let full, full.currency.uppercased() == amount.currency.uppercased(), full.amount == amount.amount
            else {
                throw StoreAdapterError(
                    .invalidProof,
                    store: .steam,
                    "Steam refunds whole orders only (RefundTxn takes no amount): omit the amount or give the order's "
                        + "full value"
                )
            }
        }

        var http = makeRequest(.post, method: "RefundTxn/v2/", query: nil)
        http.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let form = "orderid=\(orderId)&appid=\(configuration.appId)"
        // Repeatable: a second RefundTxn of a refunded order fails instead of refunding again. RefundTxn answers
        // FinalizeTxn's params (orderid, transid).
        let (body, _) = try await call(http, body: Data(form.utf8), method: .refundTxn, as: FinalizeTxnParams.self)
        guard body.result?.caseInsensitiveCompare("OK") == .orderedSame, body.error == nil else {
            let failure = try await refundFailure(body.error?.errorcode?.value, orderId: orderId)
            // The order was not refunded before this call and is now: a retried RefundTxn whose first attempt
            // succeeded (its answer lost to a 5xx or a timeout) refunded it, so this refund is done.
            guard failure.code == .alreadyDone else { throw failure }
            return try await verify(orderProof(orderId, request.proof))
        }
        logger.debug("steam order refunded", metadata: ["sandbox": "\(configuration.sandbox)"])
        return try await verify(orderProof(orderId, request.proof))
    }

    /// The statuses of an order that was never paid: created, approved but not finalized, or failed.
    private static let unpaid: Set<SteamTransactionStatus> = [.initialized, .approved, .failed]

    /// The statuses of an order whose whole value went back to the buyer.
    private static let fullReversals: Set<SteamTransactionStatus> = SteamTransactionStatus.reversals.subtracting([
        .partialRefund
    ])

    /// Why a `RefundTxn` answered `Failure`: the order refunded by now (a concurrent or repeated refund) →
    /// `alreadyDone`; Steam's internal error (4) → `storeUnavailable`; a refused parameter (3) or any other refusal →
    /// `invalidProof`, with the error code as the store reason.
    private func refundFailure(_ code: Int64?, orderId: String) async throws -> StoreAdapterError {
        let reason = code.map { "errorcode \($0)" }
        if code == 4 {
            return StoreAdapterError(
                .storeUnavailable,
                store: .steam,
                "Steam had an internal error",
                storeReason: reason
            )
        }
        if let status = try await queryTxn(parameter: "orderid", id: orderId).0.status,
            Self.fullReversals.contains(status)
        {
            return StoreAdapterError(
                .alreadyDone,
                store: .steam,
                "the order is refunded or reversed already",
                storeReason: reason ?? status.rawValue
            )
        }
        return StoreAdapterError(
            .invalidProof,
            store: .steam,
            code == 3 ? "Steam rejected a parameter of the refund" : "Steam refused to refund the order",
            storeReason: reason
        )
    }

    /// The proof to read a refunded order with: the caller's order or transaction proof, else the order id.
    private func orderProof(_ orderId: String, _ proof: PurchaseProof?) -> PurchaseProof {
        if let proof, proof.store == .steam, proof.kind == .steamOrder || proof.kind == .steamTransaction {
            return proof
        }
        return PurchaseProof(store: .steam, kind: .steamOrder, token: Secret(orderId), productId: proof?.productId)
    }

    // MARK: - Cancel

    /// The id ``cancelSubscription(id:atPeriodEnd:)`` takes for a billing agreement: `"<steamid>:<agreementid>"`
    /// (`CancelAgreement` needs both; a `.steamAgreement` proof carries the agreement id as its token and the steamid
    /// in `context["steamid"]`).
    public static func subscriptionId(steamId: String, agreementId: String) -> String {
        "\(steamId):\(agreementId)"
    }

    /// The `.steamAgreement` proof a subscription id `"<steamid>:<agreementid>"` names
    /// (``subscriptionId(steamId:agreementId:)``); anything else is ``StoreAdapterError/Code/invalidProof``.
    public static func agreementProof(subscriptionId id: String, productId: String? = nil) throws -> PurchaseProof {
        let parts = id.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, isUInt64(parts[0]), isUInt64(parts[1]) else {
            throw StoreAdapterError(
                .invalidProof,
                store: .steam,
                "a Steam subscription id is \"<steamid>:<agreementid>\" (two 64-bit ids)"
            )
        }
        return PurchaseProof(
            store: .steam,
            kind: .steamAgreement,
            token: Secret(parts[1]),
            productId: productId,
            context: ["steamid": parts[0]]
        )
    }

    /// Cancels a recurring billing agreement with `CancelAgreement/v1` (`steamid`, `agreementid`, `appid`) and
    /// returns it as ``verify(_:)`` reads a `.steamAgreement` proof (`GetUserAgreementInfo`).
    ///
    /// `id` is `"<steamid>:<agreementid>"` (``subscriptionId(steamId:agreementId:)``). The agreement is read first:
    /// one the user does not have is ``StoreAdapterError/Code/notFound``; one that is no longer `Active`
    /// (`Inactive`, `Canceled`, `Expired`) is ``StoreAdapterError/Code/alreadyDone``, and so is Steam's error 12
    /// ("billing agreement is not active") from `CancelAgreement` itself.
    ///
    /// Steam has one kind of cancellation: no further payment, while the period already paid for runs out (the
    /// returned purchase stays active until then, not renewing). `atPeriodEnd: false` is therefore
    /// ``StoreAdapterError/Code/unsupported`` (as on Google Play), sent nowhere; a game that wants access to end now
    /// revokes it itself and refunds the last order with ``refund(_:)``.
    public func cancelSubscription(id: String, atPeriodEnd: Bool) async throws -> VerifiedPurchase {
        guard atPeriodEnd else {
            throw StoreAdapterError(
                .unsupported,
                store: .steam,
                "Steam ends a billing agreement at the end of its paid period only; cancel at period end, and refund "
                    + "the last order to end access now",
                storeReason: StoreOperation.cancelSubscription.rawValue
            )
        }
        let proof = try Self.agreementProof(subscriptionId: id)
        let (steamId, agreementId) = (proof.context["steamid"] ?? "", proof.token.revealed)
        let before = try await verifyAgreement(proof)
        let status = before.storeStatus?.split(separator: "/").first.map { $0.lowercased() } ?? ""
        guard status == "active" else {
            throw StoreAdapterError(
                .alreadyDone,
                store: .steam,
                "the billing agreement is cancelled or ended already",
                storeReason: before.storeStatus
            )
        }
        do {
            try await cancelAgreement(steamId: steamId, agreementId: agreementId)
        } catch let error as StoreAdapterError where error.storeReason == "errorcode 12" {
            throw StoreAdapterError(
                .alreadyDone,
                store: .steam,
                "the billing agreement is not active any more",
                storeReason: error.storeReason
            )
        }
        logger.debug("steam agreement cancelled")
        return try await verifyAgreement(proof)
    }

    // MARK: - Extend

    /// Moves a Steam-billed agreement's next payment `change.days` days later with `AdjustAgreement/v1` (Valve's
    /// "AdjustAgreement": `nextprocessdate`, forward only), then reads it again as ``verify(_:)`` does.
    ///
    /// `proof` is a `.steamAgreement` proof (the agreement id, `context["steamid"]`). The agreement is read first
    /// (`GetUserAgreementInfo`): one the user does not have is ``StoreAdapterError/Code/notFound``; one that is not
    /// `Active`, is billed by the game (`billingtype` `Game`: the game charges with
    /// ``processAgreement(steamId:agreementId:orderId:amount:)`` when it chooses), or has no next payment is
    /// ``StoreAdapterError/Code/invalidProof`` with the agreement's status or billing type as the store reason. The
    /// new day is the current `nextpayment` plus `change.days` (1 to 3650), in UTC. `change.reason` and
    /// `change.requestIdentifier` are not sent (Steam takes neither); the day is absolute, so a repeated request
    /// moves nothing further, and Steam has no "moved already" answer.
    public func extendSubscription(_ proof: PurchaseProof, by change: StoreExtension) async throws
        -> VerifiedPurchase
    {
        guard (1...3_650).contains(change.days) else {
            throw StoreAdapterError(.invalidProof, store: .steam, "a Steam extension is 1 to 3650 days")
        }
        guard proof.kind == .steamAgreement else {
            throw StoreAdapterError(.invalidProof, store: .steam, "only a billing agreement's payment date can move")
        }
        let (agreement, steamId, _) = try await readAgreement(proof)
        let status = agreement.status ?? ""
        guard status.caseInsensitiveCompare("Active") == .orderedSame else {
            throw StoreAdapterError(
                .invalidProof,
                store: .steam,
                "only an active billing agreement's next payment can move",
                storeReason: status
            )
        }
        guard agreement.billingtype?.caseInsensitiveCompare("Steam") == .orderedSame else {
            throw StoreAdapterError(
                .invalidProof,
                store: .steam,
                "only a Steam-billed agreement's next payment can move; a game-billed one is charged when the game "
                    + "calls ProcessAgreement",
                storeReason: agreement.billingtype
            )
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        guard let next = SteamDay.parse(agreement.nextpayment),
            let moved = calendar.date(byAdding: .day, value: change.days, to: next)
        else {
            throw StoreAdapterError(
                .invalidProof,
                store: .steam,
                "the billing agreement has no next payment to move",
                storeReason: status
            )
        }
        _ = try await adjustAgreement(steamId: steamId, agreementId: agreement.agreementid.text, nextProcessDate: moved)
        logger.debug("steam agreement adjusted", metadata: ["days": "\(change.days)"])
        return try await verifyAgreement(proof)
    }

    // MARK: - History

    /// A user's recurring billing agreements for the app (`GetUserAgreementInfo/v1`, `customer` = the 64-bit
    /// steamid), each mapped as ``verify(_:)`` maps a `.steamAgreement` proof, newest first (by start date, then
    /// agreement id); those it cannot map are left out of the page.
    ///
    /// Steam answers every agreement at once, so pages are cut here: `limit` (1 to 100) per page, and the cursor is
    /// the last agreement id of the previous page (one the user no longer has is
    /// ``StoreAdapterError/Code/invalidProof``). One-time orders are not listed: Steam has no per-user order list
    /// (``refundReport(since:maxResults:type:)``'s `GetReport` covers the whole app by time). A failure with error 2
    /// for a well-formed steamid is read as an unknown user (``StoreAdapterError/Code/notFound``).
    public func transactionHistory(customer: String, cursor: String?, limit: Int) async throws -> PurchasePage {
        guard Self.isUInt64(customer) else {
            throw StoreAdapterError(.invalidProof, store: .steam, "a Steam customer is a 64-bit steamid")
        }
        let request = makeRequest(
            .get,
            method: "GetUserAgreementInfo/v1/",
            query: "steamid=\(customer)&appid=\(configuration.appId)"
        )
        let (body, date) = try await call(
            request,
            body: nil,
            method: .getUserAgreementInfo,
            as: SteamAgreementParams.self
        )
        if body.error?.errorcode?.value == 2 {
            throw StoreAdapterError(
                .notFound,
                store: .steam,
                "Steam found no such user for this app",
                storeReason: "errorcode 2"
            )
        }
        if let failure = Self.failure(body, method: .getUserAgreementInfo) { throw failure }
        let now = date ?? http.client.clock.currentDate
        let purchases = (body.params?.agreements ?? []).compactMap { agreement -> VerifiedPurchase? in
            let proof = PurchaseProof(
                store: .steam,
                kind: .steamAgreement,
                token: Secret(agreement.agreementid.text),
                context: ["steamid": customer]
            )
            return try? Self.purchase(
                from: agreement,
                steamId: customer,
                proof: proof,
                sandbox: configuration.sandbox,
                verifiedAt: date,
                now: now
            )
        }
        .sorted(by: Self.newestFirst)
        var start = 0
        if let cursor {
            guard let index = purchases.firstIndex(where: { $0.transactionId == cursor }) else {
                throw StoreAdapterError(.invalidProof, store: .steam, "the cursor names no agreement of this user")
            }
            start = index + 1
        }
        let end = min(purchases.count, start + max(1, min(limit, 100)))
        let page = Array(purchases[start..<end])
        return PurchasePage(purchases: page, nextCursor: end < purchases.count ? page.last?.transactionId : nil)
    }

    /// Later start first; the larger agreement id first on the same day.
    private static func newestFirst(_ lhs: VerifiedPurchase, _ rhs: VerifiedPurchase) -> Bool {
        if lhs.purchaseDate != rhs.purchaseDate { return lhs.purchaseDate > rhs.purchaseDate }
        return (UInt64(lhs.transactionId) ?? 0) > (UInt64(rhs.transactionId) ?? 0)
    }
}
