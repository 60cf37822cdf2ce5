extension AppStore {
    /// Where a message's header goes: above its body (the default) or above its image.
    ///
    /// [HeaderPosition](https://developer.apple.com/documentation/retentionmessaging/headerposition)
    public enum HeaderPosition: String, Sendable, Hashable, Codable, CaseIterable {
        /// `ABOVE_BODY`.
        case aboveBody = "ABOVE_BODY"
        /// `ABOVE_IMAGE`.
        case aboveImage = "ABOVE_IMAGE"
    }
}
