import Foundation
import HTTPTypes
import OpenCatCore

/// Stripe's refunds read and cancelled (<https://docs.stripe.com/api/refunds>); creating one is ``refund(_:)``.
extension StripeAdapter {
    /// A refund as Stripe reports it now (Retrieve a refund, `GET /v1/refunds/{id}`).
    public func refund(id: String) async throws -> Stripe.Refund {
        let id = try Self.refundId(id)
        return try await refundCall(.get, path: "/v1/refunds/\(id)", idempotencyKey: nil)
    }

    /// A PaymentIntent's refunds, newest first (List all refunds, `GET /v1/refunds?payment_intent=…&limit=…`, from
    /// `startingAfter` on: a refund id of the previous page).
    public func refunds(paymentIntent: String, limit: Int = 10, startingAfter: String? = nil) async throws
        -> Stripe.List<Stripe.Refund>
    {
        guard let intent = Self.paymentIntentId(from: paymentIntent) else {
            throw StoreAdapterError(.invalidProof, store: .stripe, "a Stripe PaymentIntent id starts with pi_")
        }
        var query: [(String, String)] = [("payment_intent", intent), ("limit", String(max(1, min(limit, 100))))]
        if let startingAfter { query.append(("starting_after", try Self.refundId(startingAfter))) }
        let request = APIRequest.make(.get, baseURL: configuration.baseURL, path: "/v1/refunds", query: query)
        let response = try await http.send(authorizedRequest(request, form: false))
        guard response.status.code == 200 else { throw error(for: response, resource: "refund") }
        return try http.decode(Stripe.List<Stripe.Refund>.self, from: response.body)
    }

    /// A refund as Stripe reports it now (Retrieve a refund), normalized.
    public func refundStatus(id: String) async throws -> StoreRefund { Self.storeRefund(try await refund(id: id)) }

    /// A PaymentIntent's refunds, newest first, normalized (List all refunds; `cursor`: the last refund id of the
    /// previous page). `limit` is clamped to Stripe's 1…100.
    public func refunds(transactionId: String, cursor: String?, limit: Int) async throws -> StoreRefundPage {
        let list = try await refunds(paymentIntent: transactionId, limit: limit, startingAfter: cursor)
        return StoreRefundPage(
            refunds: list.data.map(Self.storeRefund),
            nextCursor: list.hasMore ? list.data.last?.id : nil
        )
    }

    /// Cancels a refund still waiting for the customer (`requires_action`; Cancel a refund,
    /// `POST /v1/refunds/{id}/cancel`, with an `Idempotency-Key`), and returns it as Stripe answers. One already
    /// cancelled is ``StoreAdapterError/Code/alreadyDone``; one in another state keeps Stripe's refusal
    /// (``StoreAdapterError/Code/invalidProof``).
    public func cancelRefund(id: String) async throws -> StoreRefund {
        let id = try Self.refundId(id)
        do {
            return Self.storeRefund(
                try await refundCall(.post, path: "/v1/refunds/\(id)/cancel", idempotencyKey: "opencat-cancel-\(id)")
            )
        } catch let error as StoreAdapterError where error.code == .invalidProof {
            let current = try await refund(id: id)
            guard current.status == .canceled else { throw error }
            throw StoreAdapterError(
                .alreadyDone,
                store: .stripe,
                "the refund is cancelled already",
                storeReason: current.status?.rawValue
            )
        }
    }

    private func refundCall(_ method: HTTPRequest.Method, path: String, idempotencyKey: String?) async throws
        -> Stripe.Refund
    {
        var request = APIRequest.make(method, baseURL: configuration.baseURL, path: path)
        if let idempotencyKey { request.headerFields[HTTPField.Name("Idempotency-Key")!] = idempotencyKey }
        let response = try await http.send(
            authorizedRequest(request, form: method == .post),
            body: method == .post ? Data() : nil,
            idempotent: true
        )
        guard response.status.code == 200 else { throw error(for: response, resource: "refund") }
        return try http.decode(Stripe.Refund.self, from: response.body)
    }

    /// A Stripe Refund normalized: its amount exact in the currency's minor units, its status as Stripe wrote it.
    static func storeRefund(_ refund: Stripe.Refund) -> StoreRefund {
        let currency = refund.currency?.uppercased()
        return StoreRefund(
            store: .stripe,
            id: refund.id,
            transactionId: refund.paymentIntent ?? refund.charge,
            amount: refund.amount.flatMap { amount in
                currency.map {
                    Money(minorUnits: amount, currency: $0, exponent: Stripe.minorUnitExponent(forCurrency: $0))
                }
            },
            status: refund.status ?? .pending,
            storeStatus: refund.status?.rawValue ?? "",
            reason: refund.failureReason ?? refund.reason,
            created: refund.created.map { Date(timeIntervalSince1970: TimeInterval($0)) }
        )
    }

    /// A refund id in a request path (`re_…` or `pyr_…`, at most 255 characters, letters, digits and `_`).
    static func refundId(_ id: String) throws -> String {
        guard id.hasPrefix("re_") || id.hasPrefix("pyr_"), id.utf8.count <= 255,
            id.utf8.allSatisfy({ Self.isASCIIAlphanumeric($0) || $0 == UInt8(ascii: "_") })
        else {
            throw StoreAdapterError(.invalidProof, store: .stripe, "a Stripe refund id starts with re_")
        }
        return id
    }
}
