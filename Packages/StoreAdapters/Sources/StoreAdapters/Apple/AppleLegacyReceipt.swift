public import Foundation
import OpenCatCore

/// The fields of a legacy App Store **app receipt** (the file at `Bundle.main.appStoreReceiptURL`, usually sent to a
/// server in base64), read so that an older app's purchases can be migrated to the App Store Server API: look the
/// customer up with any ``InAppPurchase/transactionId`` (Get Transaction History), then verify what the API returns
/// as usual.
///
/// **Extraction only, no trust.** The receipt is a PKCS#7 / CMS `SignedData` whose encapsulated content is the
/// receipt payload (a SET of `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`;
/// type 17 holds one in-app purchase as a SET of the same attributes). This type reads that payload and does **not**
/// check the PKCS#7 signature, its certificate chain or the device hash: anyone can write a receipt this type
/// accepts. Use what it returns only to ask Apple (the App Store Server API answers with signed data, which
/// ``AppleStoreAdapter`` verifies), never to grant anything by itself. Apple's own server libraries extract the
/// transaction id the same way ("NO validation is performed on the receipt").
///
/// Fields, as Apple's "Receipt Fields" documents them: 2 bundle id, 3 app version, 19 original app version
/// (UTF8String), 12 creation date, 21 expiration date (IA5String, RFC 3339); in an in-app purchase: 1701 quantity
/// (INTEGER), 1702 product id, 1703 transaction id, 1705 original transaction id (UTF8String), 1704 purchase date, 1706
/// original purchase date, 1708 subscription expiration date, 1712 cancellation date (IA5String, RFC 3339; empty when
/// none), 1711 web order line item id (INTEGER). Other types are Apple's and are ignored. Field 0, the receipt type
/// (`Production`, `ProductionSandbox`, `Xcode`), is not in that list but is in the receipts StoreKit writes.
///
/// BER and DER are both read (App Store receipts use indefinite lengths and a constructed OCTET STRING). Limits:
/// ``maximumBytes`` and ``maximumDepth``; garbage, truncated or deeply nested input is a ``StoreAdapterError``
/// ``StoreAdapterError/Code/invalidProof`` whose ``StoreAdapterError/storeReason`` is a ``FailureReason``, never a
/// crash.
public struct AppleLegacyReceipt: Hashable, Sendable {
    /// The largest receipt read, in bytes once decoded (4 MiB): a receipt is a few KiB plus about 300 bytes per
    /// in-app purchase it lists.
    public static let maximumBytes = 4 * 1024 * 1024
    /// The deepest ASN.1 nesting accepted in any of the receipt's three layers (the PKCS#7 envelope, the payload, an
    /// in-app purchase); a real receipt stays under 15.
    public static let maximumDepth = 32

    /// Why a receipt was refused: the ``StoreAdapterError/storeReason`` of the error (its raw value).
    public enum FailureReason: String, Sendable, CaseIterable {
        /// No bytes (or only whitespace in base64).
        case empty
        /// Over ``AppleLegacyReceipt/maximumBytes``.
        case tooLarge = "too large"
        /// `init(base64:)` got text that is not base64.
        case notBase64 = "not base64"
        /// The input ends inside an ASN.1 element.
        case truncated
        /// ASN.1 nesting deeper than ``AppleLegacyReceipt/maximumDepth``.
        case nestingTooDeep = "nesting too deep"
        /// Not valid BER (bad tag or length, trailing bytes, …).
        case malformedASN1 = "malformed ASN.1"
        /// Valid ASN.1, but not a PKCS#7 `SignedData` ContentInfo.
        case notPKCS7 = "not PKCS#7"
        /// A `SignedData` with no encapsulated content.
        case noContent = "no content"
        /// The signed content is not a receipt payload (a SET of receipt attributes).
        case notAReceipt = "not a receipt"
        /// A known field whose value does not have its documented type (or appears twice).
        case malformedField = "malformed field"
        /// The bundle id, or an in-app purchase's transaction id, is missing.
        case missingField = "missing field"
    }

    /// One in-app purchase of the receipt (attribute type 17).
    public struct InAppPurchase: Hashable, Sendable, Codable {
        /// 1702: the product identifier.
        public var productId: String?
        /// 1703: the transaction identifier (a decimal string; `0` in Xcode's StoreKit testing).
        public var transactionId: String
        /// 1705: the original transaction identifier (the first purchase of a subscription or a restored item).
        public var originalTransactionId: String?
        /// 1704: when the App Store charged the account.
        public var purchaseDate: Date?
        /// 1706: the original purchase's date.
        public var originalPurchaseDate: Date?
        /// 1708: when the subscription period ends (auto-renewable subscriptions only).
        public var expiresDate: Date?
        /// 1712: when Apple customer support refunded the transaction, or the subscription was upgraded.
        public var cancellationDate: Date?
        /// 1701: the number of items purchased.
        public var quantity: Int?
        /// 1711: the web order line item id (subscriptions), as a decimal string.
        public var webOrderLineItemId: String?

        /// Creates an in-app purchase.
        public init(
            productId: String? = nil,
            transactionId: String,
            originalTransactionId: String? = nil,
            purchaseDate: Date? = nil,
            originalPurchaseDate: Date? = nil,
            expiresDate: Date? = nil,
            cancellationDate: Date? = nil,
            quantity: Int? = nil,
            webOrderLineItemId: String? = nil
        ) {
            self.productId = productId
            self.transactionId = transactionId
            self.originalTransactionId = originalTransactionId
            self.purchaseDate = purchaseDate
            self.originalPurchaseDate = originalPurchaseDate
            self.expiresDate = expiresDate
            self.cancellationDate = cancellationDate
            self.quantity = quantity
            self.webOrderLineItemId = webOrderLineItemId
        }
    }

    /// 2: the app's bundle identifier (not checked against anything).
    public var bundleId: String
    /// 3: the app version the receipt was issued for.
    public var applicationVersion: String?
    /// 19: the version of the app the customer first bought.
    public var originalApplicationVersion: String?
    /// 0: `Production`, `ProductionSandbox` or `Xcode`, when present.
    public var receiptType: String?
    /// 12: when the receipt was created.
    public var creationDate: Date?
    /// 21: when the receipt expires (Volume Purchase Program; far in the future otherwise).
    public var expirationDate: Date?
    /// Every in-app purchase, in receipt order (consumables appear only until the app finishes them).
    public var inAppPurchases: [InAppPurchase]

    /// Creates a receipt from its fields.
    public init(
        bundleId: String,
        applicationVersion: String? = nil,
        originalApplicationVersion: String? = nil,
        receiptType: String? = nil,
        creationDate: Date? = nil,
        expirationDate: Date? = nil,
        inAppPurchases: [InAppPurchase] = []
    ) {
        self.bundleId = bundleId
        self.applicationVersion = applicationVersion
        self.originalApplicationVersion = originalApplicationVersion
        self.receiptType = receiptType
        self.creationDate = creationDate
        self.expirationDate = expirationDate
        self.inAppPurchases = inAppPurchases
    }

    /// Reads a receipt from its bytes (BER or DER). No signature is checked (see the type's documentation).
    /// - Throws: ``StoreAdapterError`` ``StoreAdapterError/Code/invalidProof`` with a ``FailureReason`` as
    ///   ``StoreAdapterError/storeReason``. The message never contains the receipt's bytes.
    public init(der: Data) throws(StoreAdapterError) {
        guard !der.isEmpty else { throw Self.failure(.empty, "the receipt is empty") }
        guard der.count <= Self.maximumBytes else {
            throw Self.failure(.tooLarge, "the receipt is over \(Self.maximumBytes) bytes")
        }
        self = try LegacyReceiptReader.receipt(Array(der)[...])
    }

    /// Reads a receipt from base64 text (what apps send; line breaks and spaces are ignored).
    /// - Throws: ``StoreAdapterError`` ``StoreAdapterError/Code/invalidProof``, as ``init(der:)``, or with reason
    ///   ``FailureReason/notBase64``.
    public init(base64: String) throws(StoreAdapterError) {
        // Base64 of maximumBytes, with room for line breaks, before anything is copied.
        let maximumText = (Self.maximumBytes + 2) / 3 * 4
        guard base64.utf8.count <= maximumText * 2 else {
            throw Self.failure(.tooLarge, "the receipt is over \(Self.maximumBytes) bytes")
        }
        let text = base64.utf8.filter { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }
        guard !text.isEmpty else { throw Self.failure(.empty, "the receipt is empty") }
        guard text.count <= maximumText else {
            throw Self.failure(.tooLarge, "the receipt is over \(Self.maximumBytes) bytes")
        }
        guard let data = Data(base64Encoded: Data(text)) else {
            throw Self.failure(.notBase64, "the receipt text is not base64")
        }
        try self.init(der: data)
    }

    /// Every distinct transaction id (in-app transaction ids, then original transaction ids not already listed), in
    /// receipt order: any of them identifies the customer to the App Store Server API.
    public var transactionIds: [String] {
        var seen = Set<String>()
        var ids: [String] = []
        for id in inAppPurchases.map(\.transactionId) + inAppPurchases.compactMap(\.originalTransactionId)
        where seen.insert(id).inserted {
            ids.append(id)
        }
        return ids
    }

    /// The error for a refused receipt.
    static func failure(_ reason: FailureReason, _ message: String) -> StoreAdapterError {
        StoreAdapterError(
            .invalidProof,
            store: .apple,
            "not a legacy App Store receipt: \(message)",
            storeReason: reason.rawValue
        )
    }
}
