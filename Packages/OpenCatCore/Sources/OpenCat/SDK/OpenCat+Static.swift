import Logging
import OpenCatCore

extension OpenCat {
    /// ``isEntitled(_:)`` on the shared instance.
    /// - Throws: `notConfigured` before a `configure…` call.
    public static func isEntitled(_ entitlementId: String) throws -> Bool { try shared.isEntitled(entitlementId) }

    /// ``customerInfo()`` on the shared instance.
    public static func customerInfo() async throws -> CustomerInfo { try await shared.customerInfo() }

    /// ``offerings()`` on the shared instance.
    public static func offerings() async throws -> Offerings { try await shared.offerings() }

    /// ``purchase(productID:)`` on the shared instance.
    public static func purchase(productID: String) async throws -> PurchaseResult {
        try await shared.purchase(productID: productID)
    }

    /// ``restorePurchases()`` on the shared instance.
    public static func restorePurchases() async throws -> CustomerInfo { try await shared.restorePurchases() }

    /// ``customerInfoUpdates`` on the shared instance.
    public static func customerInfoUpdates() throws -> AsyncStream<CustomerInfo> { try shared.customerInfoUpdates }

    /// ``setLogLevel(_:)`` on the shared instance.
    public static func setLogLevel(_ level: Logger.Level?) throws { try shared.setLogLevel(level) }
}
