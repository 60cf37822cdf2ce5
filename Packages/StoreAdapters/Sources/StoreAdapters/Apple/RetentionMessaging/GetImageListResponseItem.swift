public import Foundation

extension AppStore {
    /// An uploaded image's identifier, review state and size.
    ///
    /// [GetImageListResponseItem](https://developer.apple.com/documentation/retentionmessaging/getimagelistresponseitem)
    public struct GetImageListResponseItem: Sendable, Hashable, Codable {
        /// The image's identifier.
        public var imageIdentifier: UUID?
        /// The raw `imageState`; see ``imageState``.
        public var rawImageState: String?
        /// The raw `imageSize`; see ``imageSize``.
        public var rawImageSize: String?

        /// The review state, if this version knows ``rawImageState``.
        public var imageState: ImageState? { rawImageState.flatMap(ImageState.init(rawValue:)) }
        /// The size, if this version knows ``rawImageSize``.
        public var imageSize: ImageSize? { rawImageSize.flatMap(ImageSize.init(rawValue:)) }

        enum CodingKeys: String, CodingKey {
            case imageIdentifier
            case rawImageState = "imageState"
            case rawImageSize = "imageSize"
        }
    }
}
