public import Foundation

/// A strict RFC 3339 timestamp parser that keeps up to nine fraction digits.
///
/// Shared by every package that reads RFC 3339 (Google's and Steam's answers, license payloads). Google's
/// `google-datetime` values (`expiryTime`, `startTime`) are "RFC 3339, Z-normalized, with 0, 3, 6 or 9
/// fractional digits; offsets other than Z are also accepted", and Steam's `time` is RFC 3339 UTC. Foundation's
/// ISO 8601 format style rejects more than three fraction digits, so this parser does the arithmetic itself:
/// `YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM)`, no leap-second smearing (`:60` rolls into the next minute).
public enum RFC3339Timestamp {
    /// A parsed instant: whole seconds since 1970-01-01T00:00:00Z and the nanoseconds after them.
    public struct Instant: Hashable, Sendable {
        /// Seconds since the Unix epoch (UTC).
        public var seconds: Int64
        /// Nanoseconds after ``seconds`` (0 ..< 1_000_000_000).
        public var nanoseconds: Int32

        /// Creates an instant.
        public init(seconds: Int64, nanoseconds: Int32) {
            self.seconds = seconds
            self.nanoseconds = nanoseconds
        }

        /// The instant as a `Date` (a `Date` keeps sub-microsecond digits only approximately).
        public var date: Date {
            Date(timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(nanoseconds) / 1_000_000_000)
        }
    }

    /// Parses a timestamp into a `Date`, or `nil` if it is not valid RFC 3339.
    public static func date(from text: String) -> Date? { instant(from: text)?.date }

    /// Parses a timestamp exactly, or `nil` if it is not valid RFC 3339.
    public static func instant(from text: String) -> Instant? {
        let bytes = Array(text.utf8)
        var index = 0

        func number(_ width: Int) -> Int? {
            guard index + width <= bytes.count else { return nil }
            var value = 0
            for offset in 0..<width {
                let byte = bytes[index + offset]
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += width
            return value
        }

        func skip(_ accepted: UInt8...) -> Bool {
            guard index < bytes.count, accepted.contains(bytes[index]) else { return false }
            index += 1
            return true
        }

        guard let year = number(4), skip(0x2D), let month = number(2), skip(0x2D), let day = number(2),
            skip(0x54, 0x74), let hour = number(2), skip(0x3A), let minute = number(2), skip(0x3A),
            let second = number(2)
        else { return nil }

        var nanoseconds = 0
        if skip(0x2E) {
            var digits = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                guard digits < 9 else { return nil }
                nanoseconds = nanoseconds * 10 + Int(bytes[index] - 0x30)
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<9 { nanoseconds *= 10 }
        }

        var offsetSeconds = 0
        if skip(0x5A, 0x7A) {
            // UTC
        } else if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D {
            let sign = bytes[index] == 0x2D ? -1 : 1
            index += 1
            guard let offsetHours = number(2), skip(0x3A), let offsetMinutes = number(2), offsetHours <= 23,
                offsetMinutes <= 59
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }

        guard (1...12).contains(month), (1...daysInMonth(month, year: year)).contains(day), hour <= 23, minute <= 59,
            second <= 60
        else { return nil }

        let days = Int64(daysFromCivil(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        return Instant(seconds: seconds, nanoseconds: Int32(nanoseconds))
    }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
