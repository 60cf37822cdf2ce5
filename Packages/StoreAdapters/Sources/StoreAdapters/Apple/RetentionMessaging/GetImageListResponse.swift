extension AppStore {
    /// Every uploaded image and its state (Get Image List).
    ///
    /// [GetImageListResponse](https://developer.apple.com/documentation/retentionmessaging/getimagelistresponse)
    public struct GetImageListResponse: Sendable, Hashable, Codable {
        /// The images.
        public var imageIdentifiers: [GetImageListResponseItem]?
    }
}
