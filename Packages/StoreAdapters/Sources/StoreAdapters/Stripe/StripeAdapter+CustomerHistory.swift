import Foundation
import HTTPTypes
import OpenCatCore

/// The parts of a Stripe customer's history that ``transactionHistory(customer:cursor:limit:)`` (their
/// PaymentIntents) does not show as purchases: their subscriptions
/// (<https://docs.stripe.com/api/subscriptions/list>) and their invoices (<https://docs.stripe.com/api/invoices/list>).
extension StripeAdapter {
    /// A customer's subscriptions of every status, newest first, a page at a time (List subscriptions,
    /// `GET /v1/subscriptions?customer=…&status=all&limit=…&expand[]=data.latest_invoice`, from `cursor` on: the last
    /// subscription id of the previous page), each mapped as ``verify(_:)`` maps a subscription.
    ///
    /// Stripe leaves cancelled subscriptions out unless asked for `status=all`, so they are asked for. A subscription
    /// of another app (``Configuration/appId``) or naming no product is left out of the page; the next cursor is
    /// still the last subscription Stripe listed. `limit` is clamped to Stripe's 1…100.
    public func subscriptions(customer: String, cursor: String?, limit: Int) async throws -> PurchasePage {
        try Self.checkCustomerId(customer)
        var query: [(String, String)] = [
            ("customer", customer), ("status", "all"), ("limit", String(max(1, min(limit, 100)))),
            ("expand[]", "data.latest_invoice"),
        ]
        if let cursor {
            try Self.checkSubscriptionId(cursor)
            query.append(("starting_after", cursor))
        }
        let request = APIRequest.make(.get, baseURL: configuration.baseURL, path: "/v1/subscriptions", query: query)
        let response = try await http.send(authorizedRequest(request, form: false))
        guard response.status.code == 200 else { throw error(for: response, resource: "customer") }
        let list = try http.decode(SubscriptionList.self, from: response.body)
        let storeDate = HTTPDate.of(response.head.headerFields)
        let purchases = list.data.compactMap { subscription -> VerifiedPurchase? in
            guard (try? checkApplication(subscription.metadata)) != nil else { return nil }
            return try? Self.purchase(
                from: subscription,
                expectedProductId: nil,
                configuration: configuration,
                verifiedAt: storeDate
            )
        }
        return PurchasePage(purchases: purchases, nextCursor: list.hasMore ? list.data.last?.id : nil)
    }

    /// A customer's invoices, newest first (List all invoices, `GET /v1/invoices?customer=…&limit=…`, from
    /// `startingAfter` on: the last invoice id of the previous page): what each billed, paid and still owes, and the
    /// subscription it belongs to. `limit` is clamped to Stripe's 1…100.
    public func invoices(customer: String, limit: Int = 10, startingAfter: String? = nil) async throws
        -> Stripe.List<Stripe.Subscription.Invoice>
    {
        try Self.checkCustomerId(customer)
        var query: [(String, String)] = [("customer", customer), ("limit", String(max(1, min(limit, 100))))]
        if let startingAfter {
            try Self.checkObjectId(startingAfter, prefix: "in_", "invoice")
            query.append(("starting_after", startingAfter))
        }
        let request = APIRequest.make(.get, baseURL: configuration.baseURL, path: "/v1/invoices", query: query)
        let response = try await http.send(authorizedRequest(request, form: false))
        guard response.status.code == 200 else { throw error(for: response, resource: "customer") }
        return try http.decode(Stripe.List<Stripe.Subscription.Invoice>.self, from: response.body)
    }

    /// `cus_…`, at most 255 characters: anything else is ``StoreAdapterError/Code/invalidProof`` before a request.
    static func checkCustomerId(_ customer: String) throws { try checkObjectId(customer, prefix: "cus_", "customer") }

    /// A page of subscriptions (a subscription decodes only).
    private struct SubscriptionList: Decodable {
        var data: [Stripe.Subscription]
        var hasMore: Bool

        enum CodingKeys: String, CodingKey {
            case data
            case hasMore = "has_more"
        }
    }
}
