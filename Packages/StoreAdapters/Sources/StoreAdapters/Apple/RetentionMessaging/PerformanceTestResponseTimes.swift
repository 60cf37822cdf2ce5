extension AppStore {
    /// The response times a performance test measured, in milliseconds.
    ///
    /// [PerformanceTestResponseTimes](https://developer.apple.com/documentation/retentionmessaging/performancetestresponsetimes)
    public struct PerformanceTestResponseTimes: Sendable, Hashable, Codable {
        /// The mean.
        public var average: Int64?
        /// The median.
        public var p50: Int64?
        /// The 90th percentile.
        public var p90: Int64?
        /// The 95th percentile.
        public var p95: Int64?
        /// The 99th percentile.
        public var p99: Int64?
    }
}
