extension AppStore {
    /// Every uploaded message and its state (Get Message List).
    ///
    /// [GetMessageListResponse](https://developer.apple.com/documentation/retentionmessaging/getmessagelistresponse)
    public struct GetMessageListResponse: Sendable, Hashable, Codable {
        /// The messages.
        public var messageIdentifiers: [GetMessageListResponseItem]?
    }
}
