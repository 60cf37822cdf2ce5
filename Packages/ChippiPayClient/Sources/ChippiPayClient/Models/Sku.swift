public import Foundation

/// A service ChippiPay sells (`GET /skus`, `GET /skus/{id}`): a phone top-up, a bill, a gift card.
public struct Sku: Sendable, Hashable, Codable, Identifiable {
    /// ChippiPay's id of the SKU (what `GET /skus/{id}` and a purchase's `skuId` take).
    public var id: String
    /// The name shown to the buyer (`Telcel 100`).
    public var name: String
    /// A longer description, when ChippiPay has one.
    public var description: String?
    /// The provider that delivers the service (a carrier, a biller), by ChippiPay's id.
    public var providerId: String?
    /// ChippiPay's category, as sent (the `category` filter of `skus(page:limit:category:)` takes it).
    public var category: String?
    /// The fixed price in `currency`, exact; `nil` for a variable amount.
    public var fixedAmount: Decimal?
    /// The ISO 4217 code of `fixedAmount` and of purchases of this SKU (`MXN`).
    public var currency: String?
    /// What to ask the buyer for as the reference (`Phone number`).
    public var referenceLabel: String?
    /// The pattern a reference (a phone number, an account) must match.
    public var referenceRegexValidation: String?
    /// What to ask the buyer for as the amount, for a variable-amount SKU.
    public var amountLabel: String?
    /// The pattern a variable amount must match, as ChippiPay sends it.
    public var amountRegexValidation: String?
    /// The URL of the provider's logo, as text.
    public var logoUrl: String?
    /// Whether ChippiPay sells the SKU now; `nil` when not sent.
    public var isActive: Bool?

    /// A SKU with its id and name; the rest optional.
    public init(
        id: String,
        name: String,
        description: String? = nil,
        providerId: String? = nil,
        category: String? = nil,
        fixedAmount: Decimal? = nil,
        currency: String? = nil,
        referenceLabel: String? = nil,
        referenceRegexValidation: String? = nil,
        amountLabel: String? = nil,
        amountRegexValidation: String? = nil,
        logoUrl: String? = nil,
        isActive: Bool? = nil
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.providerId = providerId
        self.category = category
        self.fixedAmount = fixedAmount
        self.currency = currency
        self.referenceLabel = referenceLabel
        self.referenceRegexValidation = referenceRegexValidation
        self.amountLabel = amountLabel
        self.amountRegexValidation = amountRegexValidation
        self.logoUrl = logoUrl
        self.isActive = isActive
    }

    /// Whether `reference` matches the SKU's own pattern (true when it has none; false when the pattern cannot be
    /// read: nothing is paid against a rule that cannot be checked).
    public func accepts(reference: String) -> Bool {
        Self.matches(reference, referenceRegexValidation)
    }

    /// Whether a fiat amount fits the SKU: its fixed amount and currency when it has them, and its amount pattern.
    public func accepts(amount: Decimal, currency requested: String) -> Bool {
        if let fixedAmount, fixedAmount != amount { return false }
        if let currency, currency.uppercased() != requested.uppercased() { return false }
        var copy = amount
        return Self.matches(NSDecimalString(&copy, Locale(identifier: "en_US_POSIX")), amountRegexValidation)
    }

    static func matches(_ text: String, _ pattern: String?) -> Bool {
        guard let pattern else { return true }
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}

/// One page of a list: `{data, total, page, limit, totalPages}` (the SDK's snake `total_pages` also read).
public struct Page<Element: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    /// This page's elements.
    public var data: [Element]
    /// How many elements all pages hold.
    public var total: Int
    /// This page's number, from 1.
    public var page: Int
    /// The most elements a page holds.
    public var limit: Int
    /// How many pages there are.
    public var totalPages: Int

    /// A page.
    public init(data: [Element], total: Int, page: Int, limit: Int, totalPages: Int) {
        self.data = data
        self.total = total
        self.page = page
        self.limit = limit
        self.totalPages = totalPages
    }

    enum CodingKeys: String, CodingKey {
        case data, total, page, limit, totalPages
        case snakeTotalPages = "total_pages"
    }

    /// Reads `{data, total, page, limit, totalPages}` (or `total_pages`), or a bare array as one page; missing counts
    /// default to the data's.
    public init(from decoder: any Decoder) throws {
        // Older pages of the API answered a bare array.
        if let bare = try? decoder.singleValueContainer().decode([Element].self) {
            self.init(data: bare, total: bare.count, page: 1, limit: bare.count, totalPages: 1)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let data = try container.decode([Element].self, forKey: .data)
        self.init(
            data: data,
            total: try container.decodeIfPresent(Int.self, forKey: .total) ?? data.count,
            page: try container.decodeIfPresent(Int.self, forKey: .page) ?? 1,
            limit: try container.decodeIfPresent(Int.self, forKey: .limit) ?? data.count,
            totalPages: try container.decodeIfPresent(Int.self, forKey: .totalPages)
                ?? container.decodeIfPresent(Int.self, forKey: .snakeTotalPages) ?? 1
        )
    }

    /// Writes `{data, total, page, limit, totalPages}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(data, forKey: .data)
        try container.encode(total, forKey: .total)
        try container.encode(page, forKey: .page)
        try container.encode(limit, forKey: .limit)
        try container.encode(totalPages, forKey: .totalPages)
    }
}
