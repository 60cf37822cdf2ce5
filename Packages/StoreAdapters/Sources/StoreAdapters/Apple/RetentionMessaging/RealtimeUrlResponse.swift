extension AppStore {
    /// The configured URL of your Get Retention Message endpoint (Get Realtime URL).
    ///
    /// [RealtimeUrlResponse](https://developer.apple.com/documentation/retentionmessaging/realtimeurlresponse)
    public struct RealtimeUrlResponse: Sendable, Hashable, Codable {
        /// The URL.
        public var realtimeURL: String?
    }
}
