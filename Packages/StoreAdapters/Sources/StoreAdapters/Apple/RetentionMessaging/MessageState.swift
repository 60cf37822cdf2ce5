extension AppStore {
    /// The review state of an uploaded message.
    ///
    /// [MessageState](https://developer.apple.com/documentation/retentionmessaging/messagestate)
    public enum MessageState: String, Sendable, Hashable, Codable, CaseIterable {
        /// `PENDING`.
        case pending = "PENDING"
        /// `APPROVED`.
        case approved = "APPROVED"
        /// `REJECTED`.
        case rejected = "REJECTED"
    }
}
