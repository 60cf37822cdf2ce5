public import Foundation

extension AppStore {
    /// An uploaded message's identifier and review state.
    ///
    /// [GetMessageListResponseItem](https://developer.apple.com/documentation/retentionmessaging/getmessagelistresponseitem)
    public struct GetMessageListResponseItem: Sendable, Hashable, Codable {
        /// The message's identifier.
        public var messageIdentifier: UUID?
        /// The raw `messageState`; see ``messageState``.
        public var rawMessageState: String?

        /// The review state, if this version knows ``rawMessageState``.
        public var messageState: MessageState? { rawMessageState.flatMap(MessageState.init(rawValue:)) }

        enum CodingKeys: String, CodingKey {
            case messageIdentifier
            case rawMessageState = "messageState"
        }
    }
}
