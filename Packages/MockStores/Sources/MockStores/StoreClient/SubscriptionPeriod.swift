import Foundation

/// An ISO 8601 duration of whole years, months, weeks and days (`P1M`, `P1Y`, `P1W`, `P3D`, `P1Y6M`), as
/// `Product.subscriptionPeriod` carries it, added in the Gregorian calendar in UTC.
struct SubscriptionPeriod: Sendable, Hashable {
    var components: DateComponents

    init?(iso8601 text: String) {
        guard text.hasPrefix("P"), text.count > 1 else { return nil }
        var components = DateComponents()
        var number = ""
        for character in text.dropFirst() {
            if character.isASCII, character.isNumber {
                number.append(character)
                continue
            }
            guard let value = Int(number) else { return nil }
            number = ""
            switch character {
            case "Y": components.year = value
            case "M": components.month = value
            case "W": components.day = (components.day ?? 0) + 7 * value
            case "D": components.day = (components.day ?? 0) + value
            default: return nil
            }
        }
        guard number.isEmpty else { return nil }
        self.components = components
    }

    func added(to date: Date) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(byAdding: components, to: date)
    }
}
