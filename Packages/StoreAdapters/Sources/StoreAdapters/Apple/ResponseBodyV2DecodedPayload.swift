public import Foundation

/// A decoded App Store Server Notification V2: the payload of the JWS in ``AppStore/ResponseBodyV2/signedPayload``.
///
/// [ResponseBodyV2DecodedPayload](https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload)
///
/// Exactly one of ``data``, ``summary`` and ``externalPurchaseToken`` is present.
public struct ResponseBodyV2DecodedPayload: DecodedSignedData, Codable, Hashable, Sendable {
    /// Notifications carry a signed transaction and renewal info: ``AppleJWSVerifier/Limits/maximumNotificationBytes``.
    public static func maximumJWSBytes(_ limits: AppleJWSVerifier.Limits) -> Int { limits.maximumNotificationBytes }

    /// The raw `notificationType` value; see ``notificationType``.
    public var rawNotificationType: String?
    /// The raw `subtype` value; see ``subtype``.
    public var rawSubtype: String?
    /// The unique identifier of the notification (the same on every retry).
    ///
    /// [notificationUUID](https://developer.apple.com/documentation/appstoreservernotifications/notificationuuid)
    public var notificationUUID: String?
    /// The app, environment and signed transaction and renewal info the notification is about.
    ///
    /// [data](https://developer.apple.com/documentation/appstoreservernotifications/data)
    public var data: AppStore.NotificationData?
    /// The summary of a subscription-renewal-date extension request.
    ///
    /// [summary](https://developer.apple.com/documentation/appstoreservernotifications/summary)
    public var summary: AppStore.Summary?
    /// The external purchase token of an `EXTERNAL_PURCHASE_TOKEN` notification.
    ///
    /// [externalPurchaseToken](https://developer.apple.com/documentation/appstoreservernotifications/externalpurchasetoken)
    public var externalPurchaseToken: AppStore.ExternalPurchaseToken?
    /// The notification version (`"2.0"`).
    ///
    /// [version](https://developer.apple.com/documentation/appstoreservernotifications/version)
    public var version: String?
    /// When the App Store signed the JWS.
    ///
    /// [signedDate](https://developer.apple.com/documentation/appstoreservernotifications/signeddate)
    public var signedDate: Date?

    /// The notification type, if this version knows ``rawNotificationType``.
    ///
    /// [notificationType](https://developer.apple.com/documentation/appstoreservernotifications/notificationtype)
    public var notificationType: AppStore.NotificationTypeV2? {
        get { rawNotificationType.flatMap(AppStore.NotificationTypeV2.init(rawValue:)) }
        set { rawNotificationType = newValue?.rawValue }
    }

    /// The subtype, if this version knows ``rawSubtype``.
    ///
    /// [subtype](https://developer.apple.com/documentation/appstoreservernotifications/subtype)
    public var subtype: AppStore.Subtype? {
        get { rawSubtype.flatMap(AppStore.Subtype.init(rawValue:)) }
        set { rawSubtype = newValue?.rawValue }
    }

    /// Creates a payload (for tests and mock stores; real ones come from ``AppleJWSVerifier``).
    public init(
        rawNotificationType: String? = nil,
        rawSubtype: String? = nil,
        notificationUUID: String? = nil,
        data: AppStore.NotificationData? = nil,
        summary: AppStore.Summary? = nil,
        externalPurchaseToken: AppStore.ExternalPurchaseToken? = nil,
        version: String? = nil,
        signedDate: Date? = nil
    ) {
        self.rawNotificationType = rawNotificationType
        self.rawSubtype = rawSubtype
        self.notificationUUID = notificationUUID
        self.data = data
        self.summary = summary
        self.externalPurchaseToken = externalPurchaseToken
        self.version = version
        self.signedDate = signedDate
    }

    private enum CodingKeys: String, CodingKey {
        case notificationType, subtype, notificationUUID, data, summary, externalPurchaseToken, version, signedDate
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rawNotificationType = try container.decodeIfPresent(String.self, forKey: .notificationType)
        rawSubtype = try container.decodeIfPresent(String.self, forKey: .subtype)
        notificationUUID = try container.decodeIfPresent(String.self, forKey: .notificationUUID)
        data = try container.decodeIfPresent(AppStore.NotificationData.self, forKey: .data)
        summary = try container.decodeIfPresent(AppStore.Summary.self, forKey: .summary)
        externalPurchaseToken = try container.decodeIfPresent(
            AppStore.ExternalPurchaseToken.self,
            forKey: .externalPurchaseToken
        )
        version = try container.decodeIfPresent(String.self, forKey: .version)
        signedDate = try container.decodeAppStoreDateIfPresent(forKey: .signedDate)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(rawNotificationType, forKey: .notificationType)
        try container.encodeIfPresent(rawSubtype, forKey: .subtype)
        try container.encodeIfPresent(notificationUUID, forKey: .notificationUUID)
        try container.encodeIfPresent(data, forKey: .data)
        try container.encodeIfPresent(summary, forKey: .summary)
        try container.encodeIfPresent(externalPurchaseToken, forKey: .externalPurchaseToken)
        try container.encodeIfPresent(version, forKey: .version)
        try container.encodeAppStoreDateIfPresent(signedDate, forKey: .signedDate)
    }
}
