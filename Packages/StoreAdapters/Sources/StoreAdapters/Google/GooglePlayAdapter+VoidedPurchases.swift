import Foundation
import HTTPTypes
import OpenCatCore

extension GooglePlayAdapter {
    /// One page of the Voided Purchases API: purchases voided between `startTime` and `endTime` (Google keeps 30
    /// days), `includeSubscriptions` for `type=1`, `maxResults` at most 1,000, `pageToken` from the previous page.
    public func voidedPurchases(
        startTime: Date? = nil,
        endTime: Date? = nil,
        includeSubscriptions: Bool = true,
        includeQuantityBasedPartialRefund: Bool = true,
        maxResults: Int = 1000,
        pageToken: String? = nil
    ) async throws -> GoogleVoidedPurchasePage {
        var query = ["type=\(includeSubscriptions ? 1 : 0)", "maxResults=\(min(max(maxResults, 1), 1000))"]
        if let startTime { query.append("startTime=\(Self.millis(startTime))") }
        if let endTime { query.append("endTime=\(Self.millis(endTime))") }
        if includeQuantityBasedPartialRefund { query.append("includeQuantityBasedPartialRefund=true") }
        if let pageToken { query.append("token=\(Self.segment(pageToken))") }
        let response = try await sendAuthorized(
            .get,
            path: "\(applicationPath)/purchases/voidedpurchases?" + query.joined(separator: "&")
        )
        guard (200..<300).contains(response.status.code) else { throw error(for: response) }
        return try http.decode(GoogleVoidedPurchasePage.self, from: response.body)
    }

    /// Every voided purchase since `startTime`, page after page (at most `pageLimit` pages): what a sync job
    /// revokes.
    public func allVoidedPurchases(since startTime: Date? = nil, endTime: Date? = nil, pageLimit: Int = 100)
        async throws -> [GoogleVoidedPurchase]
    {
        var result: [GoogleVoidedPurchase] = []
        var token: String?
        for _ in 0..<max(1, pageLimit) {
            let page = try await voidedPurchases(startTime: startTime, endTime: endTime, pageToken: token)
            result += page.voidedPurchases
            guard let next = page.nextPageToken, !next.isEmpty, next != token else { break }
            token = next
        }
        return result
    }

    /// The voided entry for a purchase token, looking from the purchase's time on (nil when it was not voided).
    func voided(token: String, orderId: String?, purchasedAt: Date, subscription: Bool) async throws
        -> GoogleVoidedPurchase?
    {
        // Google keeps 30 days of voided purchases and refuses an older startTime.
        let oldest = http.client.clock.currentDate.addingTimeInterval(-30 * 86_400 + 3_600)
        let start = max(purchasedAt.addingTimeInterval(-60), oldest)
        var pageToken: String?
        for _ in 0..<max(0, min(configuration.voidedPurchasesPageLimit, 1_000)) {
            let page = try await voidedPurchases(
                startTime: start,
                includeSubscriptions: subscription,
                pageToken: pageToken
            )
            // A subscription keeps its token across renewals: only a refund of its current order revokes it.
            let match = page.voidedPurchases.first {
                $0.purchaseToken == token
                    && (!subscription || orderId == nil || $0.orderId == nil || $0.orderId == orderId)
            }
            if let match { return match }
            guard let next = page.nextPageToken, !next.isEmpty, next != pageToken else { return nil }
            pageToken = next
        }
        return nil
    }

    /// A verified purchase revised by the Voided Purchases API: a voided token is refunded (a quantity-based
    /// partial refund too, with the refunded share of the price).
    func consultingVoidedPurchases(_ purchase: VerifiedPurchase, token: String, subscription: Bool) async throws
        -> VerifiedPurchase
    {
        guard configuration.consultVoidedPurchases, purchase.state != .refunded, purchase.state != .pending else {
            return purchase
        }
        guard
            let voided = try await voided(
                token: token,
                orderId: purchase.transactionId,
                purchasedAt: purchase.purchaseDate,
                subscription: subscription
            )
        else { return purchase }
        var revised = purchase
        revised.state = .refunded
        revised.willRenew = false
        revised.storeStatus = voided.statusText
        if let price = purchase.price, let units = voided.voidedQuantity, units > 0, purchase.quantity > 0,
            let minor = price.minorUnits(exponent: 2), units < purchase.quantity
        {
            revised.refundedAmount = Money(
                minorUnits: minor / Int64(purchase.quantity) * Int64(units),
                currency: price.currency,
                exponent: 2
            )
        } else {
            revised.refundedAmount = purchase.price
        }
        return revised
    }

    /// Milliseconds since 1970, clamped to what Int64 holds (a hostile date never traps).
    static func millis(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return 0 }
        return Int64(exactly: value) ?? (value < 0 ? 0 : Int64.max / 2)
    }
}
