public import Foundation
import HTTPTypes

/// The HTTP `Date` header in its one current form, RFC 7231 §7.1.1.1 IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
///
/// Adapters report the store's `Date` as ``VerifiedPurchase/verifiedAt`` — the time the store vouched for the
/// purchase — never the device clock, which a user can set to anything. Parsing is strict: exactly 29 characters,
/// English day and month names, two-digit day, four-digit year, `GMT`, values in range, and the day name must be
/// the date's weekday. The obsolete RFC 850 and asctime forms, and anything else, read as `nil`.
public enum HTTPDate {
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Parses an IMF-fixdate.
    /// - Parameter text: the header value.
    /// - Returns: the date, or `nil` if the text is not exactly an IMF-fixdate.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29 else { return nil }
        func string(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        func byte(_ index: Int, _ character: Unicode.Scalar) -> Bool { bytes[index] == UInt8(ascii: character) }
        guard byte(3, ","), byte(4, " "), byte(7, " "), byte(11, " "), byte(16, " "), byte(19, ":"), byte(22, ":"),
            byte(25, " "), string(26..<29) == "GMT",
            let weekday = days.firstIndex(of: string(0..<3)),
            let day = number(5..<7), let monthIndex = months.firstIndex(of: string(8..<11)),
            let year = number(12..<16), let hour = number(17..<19), let minute = number(20..<22),
            let second = number(23..<25)
        else { return nil }
        let month = monthIndex + 1
        guard year >= 1970, (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second < 61  // a leap second is allowed by the grammar
        else { return nil }
        let dayNumber = daysFromCivil(year: year, month: month, day: day)
        // 1970-01-01 was a Thursday (index 3 from Monday).
        guard (dayNumber % 7 + 3) % 7 == weekday else { return nil }
        let seconds = Int64(dayNumber) * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59))
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The `Date` header of a response, parsed strictly; `nil` when absent or not an IMF-fixdate.
    static func of(_ fields: HTTPFields) -> Date? {
        fields[.date].flatMap(parse)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
