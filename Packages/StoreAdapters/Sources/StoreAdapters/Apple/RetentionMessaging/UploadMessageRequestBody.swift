import OpenCatCore

extension AppStore {
    /// A retention message to upload: a header (at most 66 characters), a body (at most 144), an optional image, where
    /// the header goes, and at most five bullet points.
    ///
    /// [UploadMessageRequestBody](https://developer.apple.com/documentation/retentionmessaging/uploadmessagerequestbody)
    public struct UploadMessageRequestBody: Sendable, Hashable, Codable {
        /// The header text.
        public var header: String
        /// The body text.
        public var body: String
        /// The image shown with it.
        public var image: UploadMessageImage?
        /// Where the header goes (``HeaderPosition/aboveImage`` needs an ``image``).
        public var headerPosition: HeaderPosition?
        /// The bullet points.
        public var bulletPoints: [BulletPoint]?

        /// A message.
        public init(
            header: String,
            body: String,
            image: UploadMessageImage? = nil,
            headerPosition: HeaderPosition? = nil,
            bulletPoints: [BulletPoint]? = nil
        ) {
            self.header = header
            self.body = body
            self.image = image
            self.headerPosition = headerPosition
            self.bulletPoints = bulletPoints
        }

        /// Apple's limits, checked before anything is sent: `invalidProof` naming the field (Apple's validation
        /// error names: `headerTooLong`, `bodyTooLong`, `altTextTooLong`, `tooManyBulletPoints`, `textTooLong`,
        /// `aboveImageRequiresAnImage`).
        public func validate() throws(StoreAdapterError) {
            func refuse(_ reason: String, _ message: String) -> StoreAdapterError {
                StoreAdapterError(.invalidProof, store: .apple, message, storeReason: reason)
            }
            if header.count > 66 { throw refuse("headerTooLong", "a message header is at most 66 characters") }
            if body.count > 144 { throw refuse("bodyTooLong", "a message body is at most 144 characters") }
            if let image, image.altText.count > 150 {
                throw refuse("altTextTooLong", "an image's alternative text is at most 150 characters")
            }
            if headerPosition == .aboveImage, image == nil {
                throw refuse("aboveImageRequiresAnImage", "a header above the image needs an image")
            }
            guard let bulletPoints else { return }
            if bulletPoints.count > 5 { throw refuse("tooManyBulletPoints", "a message has at most 5 bullet points") }
            if bulletPoints.contains(where: { $0.text.count > 66 }) {
                throw refuse("textTooLong", "a bullet point is at most 66 characters")
            }
            if bulletPoints.contains(where: { $0.altText.count > 150 }) {
                throw refuse("altTextTooLong", "an image's alternative text is at most 150 characters")
            }
        }
    }
}
