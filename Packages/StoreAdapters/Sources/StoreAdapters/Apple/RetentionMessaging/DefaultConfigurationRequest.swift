public import Foundation

extension AppStore {
    /// The message to make a product and locale's default (Configure Default Message).
    ///
    /// [DefaultConfigurationRequest](https://developer.apple.com/documentation/retentionmessaging/defaultconfigurationrequest)
    public struct DefaultConfigurationRequest: Sendable, Hashable, Codable {
        /// An approved message's identifier.
        public var messageIdentifier: UUID?

        /// A request.
        public init(messageIdentifier: UUID?) { self.messageIdentifier = messageIdentifier }
    }
}
