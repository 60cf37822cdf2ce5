public import Foundation

extension AppStore {
    /// An uploaded image shown with a message, and its alternative text (at most 150 characters).
    ///
    /// [UploadMessageImage](https://developer.apple.com/documentation/retentionmessaging/uploadmessageimage)
    public struct UploadMessageImage: Sendable, Hashable, Codable {
        /// The image's identifier.
        public var imageIdentifier: UUID
        /// The alternative text.
        public var altText: String

        /// An image reference.
        public init(imageIdentifier: UUID, altText: String) {
            self.imageIdentifier = imageIdentifier
            self.altText = altText
        }
    }
}
