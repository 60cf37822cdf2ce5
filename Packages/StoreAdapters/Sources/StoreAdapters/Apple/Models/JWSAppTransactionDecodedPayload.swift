public import Foundation

/// A decoded payload containing app transaction information: the customer's purchase (or download) of the app
/// itself, as Get App Transaction Info signs it (StoreKit's `AppTransaction` on the device).
///
/// [JWSAppTransactionDecodedPayload](https://developer.apple.com/documentation/appstoreserverapi/jwsapptransactiondecodedpayload)
///
/// Dates are UNIX milliseconds on the wire.
public struct JWSAppTransactionDecodedPayload: DecodedSignedData, Codable, Hashable, Sendable {
    /// The raw `receiptType` value (`Production`, `Sandbox`, `Xcode`, `LocalTesting`); see ``environment``.
    public var rawReceiptType: String?
    /// The unique identifier the App Store uses for the app.
    ///
    /// [appAppleId](https://developer.apple.com/documentation/appstoreserverapi/appappleid)
    public var appAppleId: Int64?
    /// The bundle identifier the app transaction applies to.
    ///
    /// [bundleId](https://developer.apple.com/documentation/appstoreserverapi/bundleid)
    public var bundleId: String?
    /// The app version the app transaction applies to.
    public var applicationVersion: String?
    /// The version external identifier of the app.
    public var versionExternalIdentifier: Int64?
    /// When the App Store signed the app transaction.
    ///
    /// [receiptCreationDate](https://developer.apple.com/documentation/appstoreserverapi/receiptcreationdate)
    public var receiptCreationDate: Date?
    /// When the customer originally bought (or downloaded) the app.
    ///
    /// [originalPurchaseDate](https://developer.apple.com/documentation/appstoreserverapi/originalpurchasedate)
    public var originalPurchaseDate: Date?
    /// The app version the customer originally bought.
    ///
    /// [originalApplicationVersion](https://developer.apple.com/documentation/appstoreserverapi/originalapplicationversion)
    public var originalApplicationVersion: String?
    /// The Base64 value that tells whether the app transaction belongs to a device (with ``deviceVerificationNonce``).
    public var deviceVerification: String?
    /// The UUID the device verification value was computed with.
    public var deviceVerificationNonce: String?
    /// When the customer pre-ordered the app, if they did.
    ///
    /// [preorderDate](https://developer.apple.com/documentation/appstoreserverapi/preorderdate)
    public var preorderDate: Date?
    /// The unique identifier of the app download transaction.
    ///
    /// [appTransactionId](https://developer.apple.com/documentation/appstoreserverapi/apptransactionid)
    public var appTransactionId: String?
    /// The platform the customer originally bought the app on (`iOS`, `macOS`, `tvOS`, `visionOS`).
    ///
    /// [originalPlatform](https://developer.apple.com/documentation/appstoreserverapi/originalplatform)
    public var originalPlatform: String?

    /// When the App Store signed it: ``receiptCreationDate`` (an app transaction has no `signedDate`).
    public var signedDate: Date? { receiptCreationDate }

    /// The environment, if this version knows ``rawReceiptType`` (`Xcode` and `LocalTesting` are neither).
    public var environment: AppStore.Environment? {
        rawReceiptType.flatMap(AppStore.Environment.init(rawValue:))
    }

    /// Creates a payload (for tests and mock stores; real ones come from ``AppleJWSVerifier``).
    public init(
        rawReceiptType: String? = nil,
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        applicationVersion: String? = nil,
        receiptCreationDate: Date? = nil,
        originalPurchaseDate: Date? = nil,
        originalApplicationVersion: String? = nil,
        appTransactionId: String? = nil,
        originalPlatform: String? = nil
    ) {
        self.rawReceiptType = rawReceiptType
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.applicationVersion = applicationVersion
        self.receiptCreationDate = receiptCreationDate
        self.originalPurchaseDate = originalPurchaseDate
        self.originalApplicationVersion = originalApplicationVersion
        self.appTransactionId = appTransactionId
        self.originalPlatform = originalPlatform
    }

    enum CodingKeys: String, CodingKey {
        case receiptType, appAppleId, bundleId, applicationVersion, versionExternalIdentifier, receiptCreationDate
        case originalPurchaseDate, originalApplicationVersion, deviceVerification, deviceVerificationNonce
        case preorderDate, appTransactionId, originalPlatform
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rawReceiptType = try container.decodeIfPresent(String.self, forKey: .receiptType)
        appAppleId = try container.decodeIfPresent(Int64.self, forKey: .appAppleId)
        bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
        applicationVersion = try container.decodeIfPresent(String.self, forKey: .applicationVersion)
        versionExternalIdentifier = try container.decodeIfPresent(Int64.self, forKey: .versionExternalIdentifier)
        receiptCreationDate = try container.decodeAppStoreDateIfPresent(forKey: .receiptCreationDate)
        originalPurchaseDate = try container.decodeAppStoreDateIfPresent(forKey: .originalPurchaseDate)
        originalApplicationVersion = try container.decodeIfPresent(String.self, forKey: .originalApplicationVersion)
        deviceVerification = try container.decodeIfPresent(String.self, forKey: .deviceVerification)
        deviceVerificationNonce = try container.decodeIfPresent(String.self, forKey: .deviceVerificationNonce)
        preorderDate = try container.decodeAppStoreDateIfPresent(forKey: .preorderDate)
        appTransactionId = try container.decodeIfPresent(String.self, forKey: .appTransactionId)
        originalPlatform = try container.decodeIfPresent(String.self, forKey: .originalPlatform)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(rawReceiptType, forKey: .receiptType)
        try container.encodeIfPresent(appAppleId, forKey: .appAppleId)
        try container.encodeIfPresent(bundleId, forKey: .bundleId)
        try container.encodeIfPresent(applicationVersion, forKey: .applicationVersion)
        try container.encodeIfPresent(versionExternalIdentifier, forKey: .versionExternalIdentifier)
        try container.encodeAppStoreDateIfPresent(receiptCreationDate, forKey: .receiptCreationDate)
        try container.encodeAppStoreDateIfPresent(originalPurchaseDate, forKey: .originalPurchaseDate)
        try container.encodeIfPresent(originalApplicationVersion, forKey: .originalApplicationVersion)
        try container.encodeIfPresent(deviceVerification, forKey: .deviceVerification)
        try container.encodeIfPresent(deviceVerificationNonce, forKey: .deviceVerificationNonce)
        try container.encodeAppStoreDateIfPresent(preorderDate, forKey: .preorderDate)
        try container.encodeIfPresent(appTransactionId, forKey: .appTransactionId)
        try container.encodeIfPresent(originalPlatform, forKey: .originalPlatform)
    }
}
