extension AppStore {
    /// A performance test's parameters.
    ///
    /// [PerformanceTestConfig](https://developer.apple.com/documentation/retentionmessaging/performancetestconfig)
    public struct PerformanceTestConfig: Sendable, Hashable, Codable {
        /// The most requests at a time.
        public var maxConcurrentRequests: Int64?
        /// The requests in all.
        public var totalRequests: Int64?
        /// The test's duration, in milliseconds.
        public var totalDuration: Int64?
        /// The time your endpoint has to answer, in milliseconds.
        public var responseTimeThreshold: Int64?
        /// The success rate to pass, in percent.
        public var successRateThreshold: Int32?
    }
}
