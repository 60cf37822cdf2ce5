public import Foundation

extension AppleJWSVerifier {
    /// Bounds on what the verifier reads, each checked before the work it bounds.
    ///
    /// Real App Store signed data is small: a signed transaction or renewal info is about 3–5 KB (its `x5c` chain
    /// is most of it) and a notification, which nests one of each, about 10–15 KB. The defaults leave an order of
    /// magnitude of room and still refuse a multi-megabyte JWS before decoding it.
    public struct Limits: Sendable, Hashable {
        /// The largest signed transaction or renewal info accepted (default 64 KiB).
        public var maximumSignedDataBytes: Int
        /// The largest notification `signedPayload` (or notification body) accepted (default 256 KiB).
        public var maximumNotificationBytes: Int
        /// The earliest `signedDate` accepted (default 2015-01-01: before StoreKit's signed data existed).
        public var earliestSignedDate: Date
        /// How far past the verifier's clock a `signedDate` may lie (default 1 day: a device clock may run
        /// late; a server with a trusted clock may tighten it to minutes).
        public var maximumClockSkew: Duration

        /// Creates limits.
        public init(
            maximumSignedDataBytes: Int = 64 * 1024,
            maximumNotificationBytes: Int = 256 * 1024,
            earliestSignedDate: Date = Date(timeIntervalSince1970: 1_420_070_400),
            maximumClockSkew: Duration = .seconds(86_400)
        ) {
            self.maximumSignedDataBytes = maximumSignedDataBytes
            self.maximumNotificationBytes = maximumNotificationBytes
            self.earliestSignedDate = earliestSignedDate
            self.maximumClockSkew = maximumClockSkew
        }
    }
}
