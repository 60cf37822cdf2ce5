/// The identifiers the app attached to a subscription purchase.
///
/// See <https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.subscriptionsv2#ExternalAccountIdentifiers>.
struct ExternalAccountIdentifiers: Codable, Hashable, Sendable {
    /// Set through `BillingFlowParams.Builder.setObfuscatedAccountId`.
    var obfuscatedExternalAccountId: String?
    /// Set through `BillingFlowParams.Builder.setObfuscatedProfileId`.
    var obfuscatedExternalProfileId: String?
    /// The user's id in the developer's system (Subscribe with Google / linked accounts).
    var externalAccountId: String?
}
