extension AppStore {
    /// A started performance test (Initiate Performance Test).
    ///
    /// [PerformanceTestResponse](https://developer.apple.com/documentation/retentionmessaging/performancetestresponse)
    public struct PerformanceTestResponse: Sendable, Hashable, Codable {
        /// Its parameters.
        public var config: PerformanceTestConfig?
        /// Its request id, for ``AppleRetentionMessagingClient/performanceTestResult(requestId:)``.
        public var requestId: String?
    }
}
