import Foundation

/// The App Store's timestamps: UNIX time in integer milliseconds, read as `Int64` (never through `Double` parsing).
enum AppleMilliseconds {
    /// The date for a millisecond timestamp.
    static func date(_ milliseconds: Int64?) -> Date? {
        milliseconds.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) }
    }

    /// The millisecond timestamp of a date (rounded to the nearest millisecond).
    static func milliseconds(_ date: Date?) -> Int64? {
        date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
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
