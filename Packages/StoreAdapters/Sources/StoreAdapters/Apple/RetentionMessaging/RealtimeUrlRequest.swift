import Foundation
import OpenCatCore

extension AppStore {
    /// The URL of your Get Retention Message endpoint to configure: `https`, at most 256 characters.
    ///
    /// [RealtimeUrlRequest](https://developer.apple.com/documentation/retentionmessaging/realtimeurlrequest)
    public struct RealtimeUrlRequest: Sendable, Hashable, Codable {
        /// The URL.
        public var realtimeURL: String

        /// A request; `invalidProof` (`realtimeURLTooLong`, `realtimeURLNotHTTPS`) for a URL Apple would refuse.
        public init(realtimeURL: String) throws(StoreAdapterError) {
            guard realtimeURL.count <= 256 else {
                throw StoreAdapterError(
                    .invalidProof,
                    store: .apple,
                    "the realtime URL is at most 256 characters",
                    storeReason: "realtimeURLTooLong"
                )
            }
            guard let url = URL(string: realtimeURL), url.scheme?.lowercased() == "https", url.host?.isEmpty == false
            else {
                throw StoreAdapterError(
                    .invalidProof,
                    store: .apple,
                    "the realtime URL must be an https URL",
                    storeReason: "realtimeURLNotHTTPS"
                )
            }
            self.realtimeURL = realtimeURL
        }
    }
}
