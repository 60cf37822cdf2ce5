import Foundation

/// The App Store's timestamps: UNIX time in integer milliseconds, read as `Int64` (never through `Double` parsing).
enum AppleMilliseconds {
    /// The date for a millisecond timestamp.
    static func date(_ milliseconds: Int64?) -> Date? {
        milliseconds.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) }
    }

    /// The millisecond timestamp of a date (rounded to the nearest millisecond; clamped to Int64, since a payload
    /// may carry any Int64 and Int64.max does not survive the round trip through `Double` exactly).
    static func milliseconds(_ date: Date?) -> Int64? {
        date.map { clamped(($0.timeIntervalSince1970 * 1000).rounded()) }
    }

    /// A whole number of milliseconds as Int64, saturating instead of trapping.
    static func clamped(_ value: Double) -> Int64 {
        if let exact = Int64(exactly: value) { return exact }
        if value.isNaN { return 0 }
        return value > 0 ? .max : .min
    }
}

extension KeyedDecodingContainer {
    /// Decodes an App Store millisecond timestamp.
    func decodeAppStoreDateIfPresent(forKey key: Key) throws -> Date? {
        AppleMilliseconds.date(try decodeIfPresent(Int64.self, forKey: key))
    }
}

extension KeyedEncodingContainer {
    /// Encodes a date as an App Store millisecond timestamp.
    mutating func encodeAppStoreDateIfPresent(_ date: Date?, forKey key: Key) throws {
        try encodeIfPresent(AppleMilliseconds.milliseconds(date), forKey: key)
    }
}
