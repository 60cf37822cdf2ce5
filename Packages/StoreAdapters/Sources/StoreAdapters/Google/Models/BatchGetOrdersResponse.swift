/// The answer of `orders.batchget`: the requested orders.
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/orders/batchget#BatchGetOrdersResponse>.
struct BatchGetOrdersResponse: Decodable, Sendable {
    /// The orders, in no promised order.
    var orders: [Order]?
}
