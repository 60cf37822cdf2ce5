/// Misuse of ``MockStoreClient`` (a set-up error in the test), thrown loudly.
public enum MockStoreClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The product is not in the client's catalog.
    case unknownProduct(String)
    /// No pending purchase of the product to approve.
    case noPendingPurchase(String)
    /// No transaction with the id.
    case unknownTransaction(String)
    /// A subscription product without a readable ISO 8601 `subscriptionPeriod`.
    case invalidSubscriptionPeriod(String)

    public var description: String {
        switch self {
        case .unknownProduct(let id): return "MockStoreClient: product \(id) is not in the catalog"
        case .noPendingPurchase(let id): return "MockStoreClient: no pending purchase of \(id)"
        case .unknownTransaction(let id): return "MockStoreClient: no transaction \(id)"
        case .invalidSubscriptionPeriod(let id):
            return "MockStoreClient: product \(id) needs an ISO 8601 subscriptionPeriod such as P1M"
        }
    }
}
