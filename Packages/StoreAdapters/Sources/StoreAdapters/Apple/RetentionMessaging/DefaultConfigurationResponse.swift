public import Foundation

extension AppStore {
    /// A product and locale's default message (Get Default Message).
    ///
    /// [DefaultConfigurationResponse](https://developer.apple.com/documentation/retentionmessaging/defaultconfigurationresponse)
    public struct DefaultConfigurationResponse: Sendable, Hashable, Codable {
        /// The message's identifier.
        public var messageIdentifier: UUID?
    }
}
