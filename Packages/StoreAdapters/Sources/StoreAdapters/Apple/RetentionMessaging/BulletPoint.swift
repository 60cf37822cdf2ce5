public import Foundation

extension AppStore {
    /// One bullet point of a message: its text (at most 66 characters) and image with alternative text (at most 150).
    ///
    /// [BulletPoint](https://developer.apple.com/documentation/retentionmessaging/bulletpoint)
    public struct BulletPoint: Sendable, Hashable, Codable {
        /// The text.
        public var text: String
        /// The bullet point's image.
        public var imageIdentifier: UUID
        /// The image's alternative text.
        public var altText: String

        /// A bullet point.
        public init(text: String, imageIdentifier: UUID, altText: String) {
            self.text = text
            self.imageIdentifier = imageIdentifier
            self.altText = altText
        }
    }
}
