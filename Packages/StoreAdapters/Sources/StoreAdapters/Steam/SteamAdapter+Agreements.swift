import Foundation
import HTTPTypes
import Logging
public import OpenCatCore

extension SteamAdapter {
    /// Verifies a recurring billing agreement (`PurchaseProof/Kind/steamAgreement`: the token is the 64-bit
    /// agreement id, `context["steamid"]` the user's Steam id) with `GetUserAgreementInfo/v1`:
    ///
    /// | agreement | state | until |
    /// |---|---|---|
    /// | `Active`, no failed attempt and nothing outstanding | active | `nextpayment` |
    /// | `Active` with `failedattempts` > 0 or an `outstanding` amount | billingRetry | – |
    /// | `Inactive`, `Canceled`, `Cancelled`, `Expired` | active while the last payment's period (`lastpayment` + `frequency` × `period`, capped by `enddate`) is still ahead, not renewing; else expired | that date |
    /// | other | throws `malformedResponse` | – |
    ///
    /// The product is the agreement's `itemid`; the price its `recurringamt` in cents. An agreement the user does
    /// not have is `notFound`; a proof for another app id is `wrongApplication`.
    func verifyAgreement(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        let (agreement, steamId, date) = try await readAgreement(proof)
        let purchase = try Self.purchase(
            from: agreement,
            steamId: steamId,
            proof: proof,
            sandbox: configuration.sandbox,
            verifiedAt: date,
            now: date ?? http.client.clock.currentDate
        )
        try PurchaserBinding.check(proof, reported: purchase.purchaser, field: "steamid")
        logger.debug("steam agreement verified", metadata: ["state": "\(purchase.state)"])
        return purchase
    }

    /// The agreement a `.steamAgreement` proof names as `GetUserAgreementInfo/v1` lists it now, the user's steamid
    /// and the answer's `Date`. An agreement the user does not have is `notFound`; a proof for another app id is
    /// `wrongApplication`.
    func readAgreement(_ proof: PurchaseProof) async throws -> (SteamAgreement, steamId: String, date: Date?) {
        let id = proof.token.revealed
        guard let steamId = proof.context["steamid"], Self.isUInt64(id), Self.isUInt64(steamId) else {
            throw StoreAdapterError(
                .invalidProof,
                store: .steam,
                "an agreement proof needs a 64-bit agreement id and context.steamid"
            )
        }
        if let appId = proof.context["appid"], appId != String(configuration.appId) {
            throw StoreAdapterError(
                .wrongApplication,
                store: .steam,
                "the proof names another app id than the configured one"
            )
        }
        let request = makeRequest(
            .get,
            method: "GetUserAgreementInfo/v1/",
            query: "steamid=\(steamId)&appid=\(configuration.appId)"
        )
        let (body, date) = try await call(
            request,
            body: nil,
            method: .getUserAgreementInfo,
            as: SteamAgreementParams.self
        )
        if let failure = Self.failure(body, method: .getUserAgreementInfo) { throw failure }
        guard let agreement = body.params?.agreements?.first(where: { $0.agreementid.text == id }) else {
            throw StoreAdapterError(.notFound, store: .steam, "the user has no such billing agreement for this app")
        }
        return (agreement, steamId, date)
    }

    static func purchase(
        from agreement: SteamAgreement,
        steamId: String,
        proof: PurchaseProof,
        sandbox: Bool,
        verifiedAt: Date?,
        now: Date
    ) throws -> VerifiedPurchase {
        guard let item = agreement.itemid?.text, !item.isEmpty else {
            throw StoreAdapterError(.malformedResponse, store: .steam, "the agreement has no itemid")
        }
        if let expected = proof.productId, expected != item {
            throw StoreAdapterError(.productMismatch, store: .steam, "the agreement is for another item")
        }
        guard let failed = Int64(agreement.failedattempts?.text ?? "0"),
            let outstanding = Int64(agreement.outstanding?.text ?? "0")
        else {
            throw StoreAdapterError(
                .malformedResponse,
                store: .steam,
                "the agreement's failed attempts or outstanding amount is unreadable"
            )
        }
        let status = agreement.status ?? ""
        let paidThrough = Self.paidThrough(agreement)
        let state: VerifiedPurchase.State
        var expiration: Date?
        switch status.lowercased() {
        case "active" where failed > 0 || outstanding > 0:
            state = .billingRetry
        case "active":
            guard let end = SteamDay.parse(agreement.nextpayment) ?? paidThrough else {
                throw StoreAdapterError(
                    .malformedResponse,
                    store: .steam,
                    "an active agreement without a next or last payment date"
                )
            }
            state = .active
            expiration = end
        case "inactive", "canceled", "cancelled", "expired":
            // Cancelled: no more payments; the last payment covers one more period (never past the end date).
            expiration = paidThrough ?? SteamDay.parse(agreement.enddate)
            state = expiration.map { $0 > now } == true ? .active : .expired
        default:
            throw StoreAdapterError(.malformedResponse, store: .steam, "unknown agreement status", storeReason: status)
        }
        let price = agreement.recurringamt.flatMap { Int64($0.text) }.flatMap { cents in
            agreement.currency.map { Money(minorUnits: cents, currency: $0, exponent: 2) }
        }
        return VerifiedPurchase(
            store: .steam,
            transactionId: agreement.agreementid.text,
            originalTransactionId: agreement.agreementid.text,
            productId: item,
            purchaser: steamId,
            purchaseDate: SteamDay.parse(agreement.startdate) ?? Date(timeIntervalSince1970: 0),
            expirationDate: expiration,
            state: state,
            environment: sandbox ? .sandbox : .production,
            price: price,
            willRenew: status.lowercased() == "active" && state == .active && agreement.nextpayment?.isEmpty == false,
            storeStatus: failed > 0 ? "\(status)/failedattempts=\(failed)" : status,
            verifiedAt: verifiedAt
        )
    }

    /// The end of the period the last payment bought: `lastpayment` + `frequency` × `period`, capped by a
    /// non-empty `enddate` (the agreement's planned end).
    static func paidThrough(_ agreement: SteamAgreement) -> Date? {
        guard let last = SteamDay.parse(agreement.lastpayment) else { return nil }
        let count = max(1, min(Int(agreement.frequency?.text ?? "1") ?? 1, 3_650))
        var components = DateComponents()
        switch agreement.period?.lowercased() {
        case "day": components.day = count
        case "week": components.day = 7 * count
        case "year": components.year = count
        default: components.month = count
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        guard let end = calendar.date(byAdding: components, to: last) else { return nil }
        if let planned = SteamDay.parse(agreement.enddate), planned < end { return planned }
        return end
    }

    /// Cancels a recurring billing agreement (`CancelAgreement/v1`).
    public func cancelAgreement(steamId: String, agreementId: String) async throws {
        guard Self.isUInt64(steamId), Self.isUInt64(agreementId) else {
            throw StoreAdapterError(.invalidProof, store: .steam, "Steam ids are 64-bit unsigned integers")
        }
        var request = makeRequest(.post, method: "CancelAgreement/v1/", query: nil)
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let form = "steamid=\(steamId)&agreementid=\(agreementId)&appid=\(configuration.appId)"
        let (body, _) = try await call(
            request,
            body: Data(form.utf8),
            method: .cancelAgreement,
            as: SteamAgreementAnswer.self
        )
        if let failure = Self.failure(body, method: .cancelAgreement) { throw failure }
    }

    /// Sets the day a Steam-billed agreement's next recurring payment is initiated (`AdjustAgreement/v1`: `steamid`,
    /// `agreementid`, `appid`, `nextprocessdate` as `YYYYMMDD`). Steam moves the date forward only, adding time to
    /// the subscription (and extending its end date if the new day is past it). The day is absolute, so a repeated
    /// request sets the same day: it is retried like a read. Returns the day Steam answered, if it did.
    public func adjustAgreement(steamId: String, agreementId: String, nextProcessDate: Date) async throws -> Date? {
        guard Self.isUInt64(steamId), Self.isUInt64(agreementId) else {
            throw StoreAdapterError(.invalidProof, store: .steam, "Steam ids are 64-bit unsigned integers")
        }
        var request = makeRequest(.post, method: "AdjustAgreement/v1/", query: nil)
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let form =
            "steamid=\(steamId)&agreementid=\(agreementId)&appid=\(configuration.appId)"
            + "&nextprocessdate=\(SteamDay.format(nextProcessDate))"
        let (body, _) = try await call(
            request,
            body: Data(form.utf8),
            method: .adjustAgreement,
            as: AdjustAgreementParams.self
        )
        if let failure = Self.failure(body, method: .adjustAgreement) { throw failure }
        return SteamDay.parse(body.params?.nextprocessdate)
    }

    /// Charges a recurring payment on a game-billed agreement (`ProcessAgreement/v1`): `orderId` is the game's
    /// own unique id for the payment (a repeat with the same id is refused by Steam, so it cannot charge twice),
    /// `amount` in cents.
    public func processAgreement(steamId: String, agreementId: String, orderId: String, amount: Money) async throws {
        guard Self.isUInt64(steamId), Self.isUInt64(agreementId), Self.isUInt64(orderId),
            let cents = amount.minorUnits(exponent: 2)
        else {
            throw StoreAdapterError(
                .invalidProof,
                store: .steam,
                "Steam ids are 64-bit unsigned integers; amounts are cents"
            )
        }
        var request = makeRequest(.post, method: "ProcessAgreement/v1/", query: nil)
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let form =
            "orderid=\(orderId)&steamid=\(steamId)&agreementid=\(agreementId)&appid=\(configuration.appId)"
            + "&amount=\(cents)&currency=\(amount.currency.uppercased())"
        // A charge is never repeated automatically: a lost answer is resolved with QueryTxn on the order id.
        let (body, _) = try await call(
            request,
            body: Data(form.utf8),
            method: .processAgreement,
            as: SteamAgreementAnswer.self,
            idempotent: false
        )
        if let failure = Self.failure(body, method: .processAgreement) { throw failure }
    }

    static func isUInt64(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 20 && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
            && UInt64(text) != nil
    }
}

/// The params of `CancelAgreement` / `ProcessAgreement` (the agreement id, and for a payment the order id).
struct SteamAgreementAnswer: Decodable, Sendable {
    var agreementid: SteamFlexibleID?
    var orderid: SteamFlexibleID?
}
