extension AppStore {
    /// The review state of an uploaded image.
    ///
    /// [ImageState](https://developer.apple.com/documentation/retentionmessaging/imagestate)
    public enum ImageState: String, Sendable, Hashable, Codable, CaseIterable {
        /// `PENDING`.
        case pending = "PENDING"
        /// `APPROVED`.
        case approved = "APPROVED"
        /// `REJECTED`.
        case rejected = "REJECTED"
    }
}
