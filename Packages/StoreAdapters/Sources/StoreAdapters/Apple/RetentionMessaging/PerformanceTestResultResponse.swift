extension AppStore {
    /// A performance test's results (Get Performance Test Results).
    ///
    /// [PerformanceTestResultResponse](https://developer.apple.com/documentation/retentionmessaging/performancetestresultresponse)
    public struct PerformanceTestResultResponse: Sendable, Hashable, Codable {
        /// Its parameters.
        public var config: PerformanceTestConfig?
        /// The URL it called.
        public var target: String?
        /// The raw `result`; see ``result``.
        public var rawResult: String?
        /// The share of requests answered in time, in percent.
        public var successRate: Int32?
        /// The requests not answered yet.
        public var numPending: Int32?
        /// The response times.
        public var responseTimes: PerformanceTestResponseTimes?
        /// The failures by reason (`TIMED_OUT`, `NO_RESPONSE`, …: Apple's send attempt results) and their counts.
        public var failures: [String: Int32]?

        /// The overall result, if this version knows ``rawResult``.
        public var result: PerformanceTestStatus? { rawResult.flatMap(PerformanceTestStatus.init(rawValue:)) }

        enum CodingKeys: String, CodingKey {
            case config, target, successRate, numPending, responseTimes, failures
            case rawResult = "result"
        }
    }
}
