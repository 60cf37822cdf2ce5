import Foundation
import HTTPTypes
import OpenCatCore

extension PayPalAdapter {
    /// A refund as PayPal reports it now (Payments v2 "Show refund details", `GET /v2/payments/refunds/{refund_id}`;
    /// <https://developer.paypal.com/docs/api/payments/v2/#refunds_get>): its status (a `PENDING` refund, an eCheck's,
    /// becomes `COMPLETED` or `FAILED` later), amount and times. The refund id is the `id` PayPal answers a refund
    /// with, listed in the order's `purchase_units[].payments.refunds`, or a `PAYMENT.CAPTURE.REFUNDED` webhook's
    /// resource id.
    /// - Throws: ``StoreAdapterError``: `invalidProof` (not a PayPal id), `notFound` (404 `RESOURCE_NOT_FOUND`), and
    ///   PayPal's usual errors.
    public func refundDetails(refundId: String) async throws -> PayPal.Refund {
        let id = try Self.pathId(refundId, what: "refund")
        let response = try await api.send(.get, path: "/v2/payments/refunds/\(id)")
        guard response.status.code == 200 else { throw api.error(for: response, subject: "refund") }
        return try api.http.decode(PayPal.Refund.self, from: response.body)
    }

    /// A refund as PayPal reports it now (``refundDetails(refundId:)``), normalized: `COMPLETED` is `succeeded`,
    /// `CANCELLED` `canceled`, `PENDING` and `FAILED` as they are; the pending or failed reason is PayPal's
    /// `status_details.reason`.
    public func refundStatus(id: String) async throws -> StoreRefund {
        let refund = try await refundDetails(refundId: id)
        let status: StoreRefund.Status =
            switch refund.status {
            case .completed?: .succeeded
            case .cancelled?: .canceled
            case .failed?: .failed
            case .pending?: .pending
            case let other?: StoreRefund.Status(rawValue: other.rawValue.lowercased())
            case nil:
                throw StoreAdapterError(.malformedResponse, store: .paypal, "the refund has no status")
            }
        return StoreRefund(
            store: .paypal,
            id: refund.id,
            amount: refund.amount?.exact,
            status: status,
            storeStatus: refund.status?.rawValue ?? "",
            reason: refund.statusReason,
            created: refund.createTime.flatMap(PayPalDate.parse)
        )
    }
}
