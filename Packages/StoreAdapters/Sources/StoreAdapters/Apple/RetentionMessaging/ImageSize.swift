extension AppStore {
    /// The size of an uploaded image: a full-size image, or a bullet point's.
    ///
    /// [ImageSize](https://developer.apple.com/documentation/retentionmessaging/imagesize)
    public enum ImageSize: String, Sendable, Hashable, Codable, CaseIterable {
        /// `FULL_SIZE`.
        case fullSize = "FULL_SIZE"
        /// `BULLET_POINT`.
        case bulletPoint = "BULLET_POINT"
    }
}
