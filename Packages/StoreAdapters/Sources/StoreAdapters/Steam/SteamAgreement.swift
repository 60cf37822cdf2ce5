import Foundation

/// One recurring billing agreement as `GetUserAgreementInfo/v1` lists it (ids and amounts may be strings or
/// numbers; dates are `YYYYMMDD`).
///
/// See <https://partner.steamgames.com/doc/webapi/ISteamMicroTxn> and
/// <https://partner.steamgames.com/doc/features/microtransactions/recurring_billing>.
struct SteamAgreement: Decodable, Sendable, Hashable {
    var agreementid: SteamFlexibleID
    var itemid: SteamFlexibleID?
    /// `Active`, `Inactive`, … (kept as sent).
    var status: String?
    /// `Day`, `Week`, `Month`, `Year`.
    var period: String?
    var frequency: SteamFlexibleID?
    /// `Steam` or `Game`.
    var billingtype: String?
    var startdate: String?
    var enddate: String?
    /// The recurring amount in cents.
    var recurringamt: SteamFlexibleID?
    var currency: String?
    var timecreated: String?
    var nextpayment: String?
    var lastpayment: String?
    var lastamount: SteamFlexibleID?
    var outstanding: SteamFlexibleID?
    var failedattempts: SteamFlexibleID?
}

/// `GetUserAgreementInfo`'s params: the user's agreements for the app.
struct SteamAgreementParams: Decodable, Sendable {
    var agreements: [SteamAgreement]?
}

/// `YYYYMMDD` (UTC midnight).
enum SteamDay {
    static func parse(_ text: String?) -> Date? {
        guard let text, text.count == 8, let number = Int(text) else { return nil }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(identifier: "UTC")
        components.year = number / 10_000
        components.month = number / 100 % 100
        components.day = number % 100
        guard (1...12).contains(components.month ?? 0), (1...31).contains(components.day ?? 0) else { return nil }
        return components.date
    }

    /// The UTC day of `date` as `YYYYMMDD`.
    static func format(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let day = calendar.dateComponents([.year, .month, .day], from: date)
        let number = (day.year ?? 0) * 10_000 + (day.month ?? 0) * 100 + (day.day ?? 0)
        return String(number)
    }
}
