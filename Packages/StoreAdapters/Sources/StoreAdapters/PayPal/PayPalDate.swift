import Foundation

/// PayPal's timestamps: RFC 3339 / ISO 8601 (`2018-04-01T21:20:49Z`, with optional fractional seconds or offset).
enum PayPalDate {
    static func parse(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }
}
