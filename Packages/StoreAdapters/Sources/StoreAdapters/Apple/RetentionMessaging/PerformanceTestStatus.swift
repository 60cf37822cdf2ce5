extension AppStore {
    /// The overall result of a performance test.
    ///
    /// [PerformanceTestStatus](https://developer.apple.com/documentation/retentionmessaging/performanceteststatus)
    public enum PerformanceTestStatus: String, Sendable, Hashable, Codable, CaseIterable {
        /// `PENDING`.
        case pending = "PENDING"
        /// `PASS`.
        case pass = "PASS"
        /// `FAIL`.
        case fail = "FAIL"
    }
}
