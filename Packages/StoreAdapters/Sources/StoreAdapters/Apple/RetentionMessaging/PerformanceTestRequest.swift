extension AppStore {
    /// The sandbox purchase a performance test uses (Initiate Performance Test).
    ///
    /// [PerformanceTestRequest](https://developer.apple.com/documentation/retentionmessaging/performancetestrequest)
    public struct PerformanceTestRequest: Sendable, Hashable, Codable {
        /// The original transaction id of a sandbox In-App Purchase.
        public var originalTransactionId: String

        /// A request.
        public init(originalTransactionId: String) { self.originalTransactionId = originalTransactionId }
    }
}
