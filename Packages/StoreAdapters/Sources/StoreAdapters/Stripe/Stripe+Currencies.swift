extension Stripe {
    /// Currencies Stripe treats as zero-decimal: an `amount` of 500 in JPY is ¥500.
    ///
    /// From <https://docs.stripe.com/currencies#zero-decimal>. ISK, HUF and TWD are *not* in this list: Stripe
    /// keeps them two-decimal in the Payments API for backwards compatibility (an ISK `amount` of 100 is 1 króna).
    public static let zeroDecimalCurrencies: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF",
    ]

    /// Currencies Stripe treats as three-decimal: an `amount` of 5120 in KWD is 5.120 KWD.
    ///
    /// From <https://docs.stripe.com/currencies#three-decimal>.
    public static let threeDecimalCurrencies: Set<String> = ["BHD", "JOD", "KWD", "OMR", "TND"]

    /// The number of minor-unit digits Stripe uses for a currency's `amount` fields.
    /// - Parameter currency: an ISO 4217 code, any case (Stripe sends lower case).
    /// - Returns: 0 for zero-decimal currencies, 3 for three-decimal ones, otherwise 2.
    public static func minorUnitExponent(forCurrency currency: String) -> Int {
        let code = currency.uppercased()
        if zeroDecimalCurrencies.contains(code) { return 0 }
        if threeDecimalCurrencies.contains(code) { return 3 }
        return 2
    }
}
