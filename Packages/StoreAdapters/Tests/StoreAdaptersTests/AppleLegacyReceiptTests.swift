import Foundation
import OpenCatCore
import StoreAdapters
import SwiftASN1
import Testing

/// Legacy App Store app receipts: receipts built here with swift-asn1 (DER, and the BER indefinite-length form App
/// Store receipts use), a receipt Xcode's StoreKit testing wrote (published by Apple), and garbage, truncated, deeply
/// nested and oversized inputs, each refused with a clear reason.
struct AppleLegacyReceiptTests {
    typealias Reason = AppleLegacyReceipt.FailureReason

    /// The in-app purchases of the receipt built by ``ReceiptBuilder/standard``.
    static let purchases: [ReceiptBuilder.Purchase] = [
        .init(
            fields: [
                (1701, ReceiptBuilder.integer(1)),
                (1702, ReceiptBuilder.utf8("dev.opencat.gems500")),
                (1703, ReceiptBuilder.utf8("1000000123456789")),
                (1705, ReceiptBuilder.utf8("1000000123456789")),
                (1704, ReceiptBuilder.ia5("2024-03-01T10:00:00Z")),
                (1706, ReceiptBuilder.ia5("2024-03-01T10:00:00Z")),
                (1708, ReceiptBuilder.ia5("")),
                (1712, ReceiptBuilder.ia5("")),
                (1711, ReceiptBuilder.integer(0)),
            ]
        ),
        .init(
            fields: [
                (1701, ReceiptBuilder.integer(1)),
                (1702, ReceiptBuilder.utf8("dev.opencat.monthly")),
                (1703, ReceiptBuilder.utf8("1000000234567890")),
                (1705, ReceiptBuilder.utf8("1000000111111111")),
                (1704, ReceiptBuilder.ia5("2024-04-01T10:00:00Z")),
                (1706, ReceiptBuilder.ia5("2024-01-01T10:00:00Z")),
                (1708, ReceiptBuilder.ia5("2024-05-01T10:00:00Z")),
                (1712, ReceiptBuilder.ia5("2024-04-15T08:30:00.250+02:00")),
                (1711, ReceiptBuilder.integer(230_000_123_456_789)),
                (1719, ReceiptBuilder.integer(0)),  // is_in_intro_offer_period: not read, ignored.
            ]
        ),
    ]

    static func date(_ text: String) -> Date {
        try! Date(text, strategy: .iso8601)
    }

    static func expectStandard(_ receipt: AppleLegacyReceipt) {
        #expect(receipt.bundleId == "dev.opencat.auralogic")
        #expect(receipt.applicationVersion == "42")
        #expect(receipt.originalApplicationVersion == "1.0")
        #expect(receipt.receiptType == "ProductionSandbox")
        #expect(receipt.creationDate == date("2024-04-20T12:00:00Z"))
        #expect(receipt.expirationDate == nil)
        #expect(receipt.inAppPurchases.count == 2)
        let gems = receipt.inAppPurchases[0]
        #expect(gems.productId == "dev.opencat.gems500")
        #expect(gems.transactionId == "1000000123456789")
        #expect(gems.originalTransactionId == "1000000123456789")
        #expect(gems.purchaseDate == date("2024-03-01T10:00:00Z"))
        #expect(gems.expiresDate == nil)
        #expect(gems.cancellationDate == nil)
        #expect(gems.quantity == 1)
        #expect(gems.webOrderLineItemId == "0")
        let monthly = receipt.inAppPurchases[1]
        #expect(monthly.productId == "dev.opencat.monthly")
        #expect(monthly.transactionId == "1000000234567890")
        #expect(monthly.originalTransactionId == "1000000111111111")
        #expect(monthly.originalPurchaseDate == date("2024-01-01T10:00:00Z"))
        #expect(monthly.expiresDate == date("2024-05-01T10:00:00Z"))
        #expect(monthly.cancellationDate == date("2024-04-15T06:30:00Z").addingTimeInterval(0.25))
        #expect(monthly.webOrderLineItemId == "230000123456789")
        #expect(receipt.transactionIds == ["1000000123456789", "1000000234567890", "1000000111111111"])
    }

    static func reason(_ body: () throws(StoreAdapterError) -> AppleLegacyReceipt) -> Reason? {
        do throws(StoreAdapterError) {
            _ = try body()
            return nil
        } catch {
            #expect(error.code == .invalidProof)
            #expect(error.store == .apple)
            return error.storeReason.flatMap(Reason.init(rawValue:))
        }
    }

    // MARK: - Receipts that read

    @Test func aDERReceiptBuiltWithSwiftASN1YieldsItsIds() throws {
        let receipt = try AppleLegacyReceipt(der: Data(ReceiptBuilder.standard()))
        Self.expectStandard(receipt)
    }

    @Test func theBERFormAppStoreReceiptsUseReadsTheSame() throws {
        // Indefinite lengths at every level of the envelope, and the payload split into OCTET STRING chunks.
        let ber = ReceiptBuilder.indefiniteEnvelope(payload: ReceiptBuilder.standardPayload(), chunk: 100)
        #expect(ber.starts(with: [0x30, 0x80, 0x06, 0x09]))
        Self.expectStandard(try AppleLegacyReceipt(der: Data(ber)))
    }

    @Test func base64WithLineBreaksReadsTheSame() throws {
        let text = Data(ReceiptBuilder.standard()).base64EncodedString(options: [.lineLength64Characters])
        #expect(text.contains("\r\n"))
        Self.expectStandard(try AppleLegacyReceipt(base64: text + "\n"))
    }

    @Test func aReceiptWithoutInAppPurchasesHasNoIds() throws {
        let der = ReceiptBuilder.envelope(payload: ReceiptBuilder.payload(top: [(2, ReceiptBuilder.utf8("dev.a"))]))
        let receipt = try AppleLegacyReceipt(der: Data(der))
        #expect(receipt == AppleLegacyReceipt(bundleId: "dev.a"))
        #expect(receipt.transactionIds.isEmpty)
    }

    @Test func unknownFieldsAreIgnored() throws {
        let payload = ReceiptBuilder.payload(
            top: [
                (2, ReceiptBuilder.utf8("dev.a")), (4, [0xDE, 0xAD]), (5, Array(repeating: 7, count: 20)), (99, []),
            ],
            purchases: [.init(fields: [(1703, ReceiptBuilder.utf8("7")), (1799, [0x05, 0x00])])]
        )
        let receipt = try AppleLegacyReceipt(der: Data(ReceiptBuilder.envelope(payload: payload)))
        #expect(receipt.inAppPurchases == [.init(transactionId: "7")])
    }

    /// A receipt Xcode's StoreKit testing wrote (BER, indefinite lengths, SHA-256 with RSA, a self-signed StoreKit
    /// certificate), from Apple's App Store Server Library for Swift.
    @Test func xcodesPublishedReceiptWithATransaction() throws {
        let receipt = try AppleLegacyReceipt(base64: XcodeReceipts.withTransaction)
        #expect(receipt.bundleId == "com.example.naturelab.backyardbirds.example")
        #expect(receipt.receiptType == "Xcode")
        #expect(receipt.applicationVersion == "1")
        #expect(receipt.creationDate == Self.date("2023-10-19T01:45:40Z"))
        #expect(receipt.expirationDate == Self.date("4001-01-01T00:00:00Z"))
        #expect(
            receipt.inAppPurchases == [
                .init(
                    productId: "pass.premium",
                    transactionId: "0",
                    purchaseDate: Self.date("2023-10-19T01:45:36Z"),
                    expiresDate: Self.date("2023-11-19T01:45:36Z"),
                    quantity: 1
                )
            ]
        )
        #expect(receipt.transactionIds == ["0"])
    }

    @Test func xcodesPublishedReceiptWithoutTransactions() throws {
        let receipt = try AppleLegacyReceipt(base64: XcodeReceipts.empty)
        #expect(receipt.bundleId == "com.example.naturelab.backyardbirds.example")
        #expect(receipt.inAppPurchases.isEmpty)
    }

    @Test(arguments: [
        ("2024-03-01T10:00:00Z", 1_709_287_200.0),
        ("2024-03-01t10:00:00z", 1_709_287_200.0),
        ("2024-03-01 10:00:00Z", 1_709_287_200.0),
        ("2021-04-16T10:59:33+0800", 1_618_541_973.0),
        ("2021-04-16T10:59:33+08:00", 1_618_541_973.0),
        ("2021-04-16T02:59:33-00:00", 1_618_541_973.0),
        ("2024-02-29T23:59:59.5Z", 1_709_251_199.5),
        ("1969-12-31T23:59:59Z", -1.0),
        ("4001-01-01T00:00:00Z", 64_092_211_200.0),
    ])
    func rfc3339Dates(text: String, seconds: Double) throws {
        let payload = ReceiptBuilder.payload(top: [(2, ReceiptBuilder.utf8("a")), (12, ReceiptBuilder.ia5(text))])
        let receipt = try AppleLegacyReceipt(der: Data(ReceiptBuilder.envelope(payload: payload)))
        #expect(receipt.creationDate == Date(timeIntervalSince1970: seconds))
    }

    // MARK: - Refusals

    @Test(arguments: [
        "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:00:00",
        "2024-01-01T00:00:00+8", "2024-01-01T00:00:00.Z", "2024-01-01", "yesterday", "2024-01-01T00:00:00Zjunk",
    ])
    func badDatesAreMalformedFields(text: String) {
        let payload = ReceiptBuilder.payload(top: [(2, ReceiptBuilder.utf8("a")), (12, ReceiptBuilder.ia5(text))])
        #expect(
            Self.reason { () throws(StoreAdapterError) in
                try AppleLegacyReceipt(der: Data(ReceiptBuilder.envelope(payload: payload)))
            } == .malformedField
        )
    }

    @Test func garbageIsRefusedWithAReason() throws {
        var generator = SplitMix64(seed: 26)
        var cases: [([UInt8], Reason)] = [
            ([], .empty),
            ([0x00], .truncated),
            ([0x00, 0x00], .malformedASN1),
            (Array("hello, receipt".utf8), .truncated),
            ([0x05, 0x00], .notPKCS7),
            ([0x30, 0x00], .notPKCS7),
            // A ContentInfo of another type (id-data).
            (ReceiptBuilder.contentInfo(type: [1, 2, 840, 113_549, 1, 7, 1], [0x04, 0x00]), .notPKCS7),
            // SignedData without encapsulated content (a detached signature).
            (ReceiptBuilder.envelope(payload: nil), .noContent),
            // SignedData whose content is not a receipt payload.
            (ReceiptBuilder.envelope(payload: [0x31, 0x00, 0x00]), .malformedASN1),  // Trailing bytes.
            (ReceiptBuilder.envelope(payload: [0x30, 0x00]), .notAReceipt),
            (ReceiptBuilder.envelope(payload: [0x31, 0x03, 0x02, 0x01, 0x02]), .notAReceipt),
            // A trailing byte after the ContentInfo.
            (ReceiptBuilder.standard() + [0x00], .malformedASN1),
        ]
        for _ in 0..<200 {
            let count = Int(generator.next() % 300) + 1
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            cases.append((bytes, .malformedASN1))  // Checked below only to be refused.
        }
        for (index, (bytes, expected)) in cases.enumerated() {
            let reason = Self.reason { () throws(StoreAdapterError) in try AppleLegacyReceipt(der: Data(bytes)) }
            #expect(reason != nil, "case \(index)")
            if index < 12 { #expect(reason == expected, "case \(index)") }
        }
        #expect(
            Self.reason { () throws(StoreAdapterError) in try AppleLegacyReceipt(base64: "not base64!") } == .notBase64
        )
        #expect(Self.reason { () throws(StoreAdapterError) in try AppleLegacyReceipt(base64: " \n ") } == .empty)
    }

    @Test func everyTruncationIsRefused() throws {
        let receipts: [[UInt8]] = [
            ReceiptBuilder.standard(),
            ReceiptBuilder.indefiniteEnvelope(payload: ReceiptBuilder.standardPayload(), chunk: 64),
            XcodeReceipts.bytes(XcodeReceipts.withTransaction),
        ]
        #expect(receipts.allSatisfy { $0.count > 300 })
        for receipt in receipts {
            for length in 0..<receipt.count {
                let reason = Self.reason { () throws(StoreAdapterError) in
                    try AppleLegacyReceipt(der: Data(receipt.prefix(length)))
                }
                #expect(reason == (length == 0 ? .empty : .truncated), "length \(length) of \(receipt.count)")
            }
        }
    }

    @Test func aTruncatedPayloadOrPurchaseIsRefused() {
        let payload = ReceiptBuilder.standardPayload()
        for length in [1, 2, 10, payload.count / 2, payload.count - 1] {
            let der = ReceiptBuilder.envelope(payload: Array(payload.prefix(length)))
            #expect(
                Self.reason { () throws(StoreAdapterError) in try AppleLegacyReceipt(der: Data(der)) } == .truncated
            )
        }
        let purchase = ReceiptBuilder.set(ReceiptBuilder.purchases[0].fields.map(ReceiptBuilder.attribute))
        let inner = ReceiptBuilder.payload(top: [(2, ReceiptBuilder.utf8("a")), (17, Array(purchase.dropLast(3)))])
        #expect(
            Self.reason { () throws(StoreAdapterError) in
                try AppleLegacyReceipt(der: Data(ReceiptBuilder.envelope(payload: inner)))
            } == .truncated
        )
    }

    @Test func deepNestingIsRefusedEverywhere() {
        let deepSets = ReceiptBuilder.nested(tag: 0x31, depth: 10_000)
        // 5,000 indefinite-length SETs: 31 80 … 00 00.
        let deepIndefinite =
            Array(repeating: [0x31, 0x80] as [UInt8], count: 5_000).flatMap { $0 }
            + [UInt8](repeating: 0, count: 10_000)
        let inputs: [[UInt8]] = [
            deepSets,
            deepIndefinite,
            // The envelope is fine; the payload is 10,000 nested SETs.
            ReceiptBuilder.envelope(payload: deepSets),
            // An in-app purchase of 10,000 nested SETs.
            ReceiptBuilder.envelope(
                payload: ReceiptBuilder.payload(top: [(2, ReceiptBuilder.utf8("a")), (17, deepSets)])
            ),
            // The encapsulated content as 10,000 nested constructed OCTET STRINGs.
            ReceiptBuilder.envelope(
                rawContent: ReceiptBuilder.nested(tag: 0x24, depth: 10_000, innermost: [0x04, 0x00])
            ),
            // Just past the limit.
            ReceiptBuilder.nested(tag: 0x30, depth: AppleLegacyReceipt.maximumDepth + 1),
        ]
        for (index, input) in inputs.enumerated() {
            let reason = Self.reason { () throws(StoreAdapterError) in try AppleLegacyReceipt(der: Data(input)) }
            #expect(reason == .nestingTooDeep, "input \(index)")
        }
        // A field's value nesting too deep is a malformed field.
        let payload = ReceiptBuilder.payload(top: [(2, deepSets)])
        #expect(
            Self.reason { () throws(StoreAdapterError) in
                try AppleLegacyReceipt(der: Data(ReceiptBuilder.envelope(payload: payload)))
            } == .malformedField
        )
    }

    @Test func oversizedInputIsRefusedBeforeParsing() {
        let big = Data(count: AppleLegacyReceipt.maximumBytes + 1)
        #expect(Self.reason { () throws(StoreAdapterError) in try AppleLegacyReceipt(der: big) } == .tooLarge)
        let text = String(repeating: "A", count: (AppleLegacyReceipt.maximumBytes + 2) / 3 * 4 + 4)
        #expect(Self.reason { () throws(StoreAdapterError) in try AppleLegacyReceipt(base64: text) } == .tooLarge)
    }

    @Test func missingAndMalformedFields() {
        let cases: [([UInt8], Reason)] = [
            (ReceiptBuilder.payload(top: [(3, ReceiptBuilder.utf8("1"))]), .missingField),
            (
                ReceiptBuilder.payload(
                    top: [(2, ReceiptBuilder.utf8("a"))],
                    purchases: [.init(fields: [(1702, ReceiptBuilder.utf8("p"))])]
                ), .missingField
            ),
            (ReceiptBuilder.payload(top: [(2, ReceiptBuilder.integer(5))]), .malformedField),
            (ReceiptBuilder.payload(top: [(2, [0x0C, 0x02, 0xC3, 0x28])]), .malformedField),  // Invalid UTF-8.
            (
                ReceiptBuilder.payload(top: [(2, ReceiptBuilder.utf8("a")), (2, ReceiptBuilder.utf8("b"))]),
                .malformedField
            ),
            (ReceiptBuilder.payload(top: [(2, ReceiptBuilder.utf8("a") + [0x00])]), .malformedField),
            (ReceiptBuilder.payload(top: [(2, [])]), .malformedField),
            (
                ReceiptBuilder.payload(
                    top: [(2, ReceiptBuilder.utf8("a"))],
                    purchases: [.init(fields: [(1703, ReceiptBuilder.integer(12))])]
                ), .malformedField
            ),
            (
                ReceiptBuilder.payload(
                    top: [(2, ReceiptBuilder.utf8("a"))],
                    purchases: [.init(fields: [(1703, ReceiptBuilder.utf8("1")), (1701, ReceiptBuilder.utf8("1"))])]
                ), .malformedField
            ),
            (
                ReceiptBuilder.payload(
                    top: [(2, ReceiptBuilder.utf8("a"))],
                    purchases: [
                        .init(fields: [
                            (1703, ReceiptBuilder.utf8("1")),
                            (1711, [0x02, 0x09, 0x01] + [UInt8](repeating: 0, count: 8)),
                        ])
                    ]
                ), .malformedField
            ),
        ]
        for (index, (payload, expected)) in cases.enumerated() {
            let reason = Self.reason { () throws(StoreAdapterError) in
                try AppleLegacyReceipt(der: Data(ReceiptBuilder.envelope(payload: payload)))
            }
            #expect(reason == expected, "case \(index)")
        }
    }

    @Test func mutatedReceiptsNeverCrash() {
        var generator = SplitMix64(seed: 1701)
        let originals = [
            ReceiptBuilder.standard(),
            ReceiptBuilder.indefiniteEnvelope(payload: ReceiptBuilder.standardPayload(), chunk: 50),
            XcodeReceipts.bytes(XcodeReceipts.withTransaction),
        ]
        var read = 0
        for round in 0..<3_000 {
            var bytes = originals[round % originals.count]
            for _ in 0..<(Int(generator.next() % 4) + 1) {
                let position = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[position] = UInt8(truncatingIfNeeded: generator.next())
                case 1: bytes.remove(at: position)
                default: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: position)
                }
            }
            do throws(StoreAdapterError) {
                _ = try AppleLegacyReceipt(der: Data(bytes))
                read += 1
            } catch {
                #expect(error.code == .invalidProof)
                #expect(error.storeReason.flatMap(Reason.init(rawValue:)) != nil)
            }
        }
        // Mutations inside the certificates or a string's content still read.
        #expect(read > 0)
    }

    @Test func errorsDescribeWithoutTheReceiptsContent() {
        let payload = ReceiptBuilder.payload(top: [(2, ReceiptBuilder.integer(5))])
        do throws(StoreAdapterError) {
            _ = try AppleLegacyReceipt(der: Data(ReceiptBuilder.envelope(payload: payload)))
            Issue.record("a malformed bundle id was read")
        } catch {
            #expect(error.message == "not a legacy App Store receipt: field 2 of the receipt is not a UTF8String")
            #expect(error.storeReason == "malformed field")
        }
    }
}

/// Builds receipts with swift-asn1's DER serializer, and the BER indefinite-length envelope by hand.
enum ReceiptBuilder {
    struct Purchase {
        var fields: [(Int, [UInt8])]
    }

    static let purchases = AppleLegacyReceiptTests.purchases

    static func der(_ body: (inout DER.Serializer) throws -> Void) -> [UInt8] {
        var coder = DER.Serializer()
        try! body(&coder)
        return coder.serializedBytes
    }

    static func utf8(_ text: String) -> [UInt8] { der { try $0.serialize(ASN1UTF8String(text)) } }
    static func ia5(_ text: String) -> [UInt8] { der { try $0.serialize(ASN1IA5String(text)) } }
    static func integer(_ value: Int64) -> [UInt8] { der { try $0.serialize(value) } }

    /// `SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
    static func attribute(_ field: (Int, [UInt8])) -> [UInt8] {
        der { coder in
            try coder.appendConstructedNode(identifier: .sequence) { coder in
                try coder.serialize(field.0)
                try coder.serialize(1)
                try coder.serialize(ASN1OctetString(contentBytes: field.1[...]))
            }
        }
    }

    /// A SET of already-encoded elements.
    static func set(_ elements: [[UInt8]]) -> [UInt8] {
        der { coder in
            coder.appendConstructedNode(identifier: .set) { coder in
                for element in elements { coder.serializeRawBytes(element) }
            }
        }
    }

    static func payload(top: [(Int, [UInt8])], purchases: [Purchase] = []) -> [UInt8] {
        let inApp = purchases.map { (17, set($0.fields.map(attribute))) }
        return set((top + inApp).map(attribute))
    }

    static func standardPayload() -> [UInt8] {
        payload(
            top: [
                (0, utf8("ProductionSandbox")),
                (2, utf8("dev.opencat.auralogic")),
                (3, utf8("42")),
                (4, [0x01, 0x02, 0x03, 0x04]),
                (5, Array(repeating: 0xAB, count: 20)),
                (12, ia5("2024-04-20T12:00:00Z")),
                (19, utf8("1.0")),
            ],
            purchases: purchases
        )
    }

    static func standard() -> [UInt8] { envelope(payload: standardPayload()) }

    static func contentInfo(type: ASN1ObjectIdentifier, _ content: [UInt8]) -> [UInt8] {
        der { coder in
            try coder.appendConstructedNode(identifier: .sequence) { coder in
                try coder.serialize(type)
                coder.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { coder in
                    coder.serializeRawBytes(content)
                }
            }
        }
    }

    /// A ContentInfo of SignedData, DER, with no certificates and no signer infos: `payload` in an OCTET STRING
    /// (nil: no eContent at all).
    static func envelope(payload: [UInt8]?) -> [UInt8] {
        envelope(
            rawContent: payload.map { bytes in der { try $0.serialize(ASN1OctetString(contentBytes: bytes[...])) } }
        )
    }

    /// As ``envelope(payload:)``, with `eContent`'s inside given already encoded.
    static func envelope(rawContent: [UInt8]?) -> [UInt8] {
        let signedData = der { coder in
            try coder.appendConstructedNode(identifier: .sequence) { coder in
                try coder.serialize(1)
                try coder.appendConstructedNode(identifier: .set) { coder in
                    try coder.appendConstructedNode(identifier: .sequence) { coder in
                        try coder.serialize([2, 16, 840, 1, 101, 3, 4, 2, 1] as ASN1ObjectIdentifier)  // SHA-256
                        try coder.serialize(ASN1Null())
                    }
                }
                try coder.appendConstructedNode(identifier: .sequence) { coder in
                    try coder.serialize([1, 2, 840, 113_549, 1, 7, 1] as ASN1ObjectIdentifier)
                    if let rawContent {
                        coder.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { coder in
                            coder.serializeRawBytes(rawContent)
                        }
                    }
                }
                coder.appendConstructedNode(identifier: .set) { _ in }  // signerInfos: none.
            }
        }
        return contentInfo(type: [1, 2, 840, 113_549, 1, 7, 2], signedData)
    }

    /// The envelope as App Store receipts write it: indefinite lengths (`30 80 … 00 00`), the payload in a
    /// constructed OCTET STRING of `chunk`-byte pieces.
    static func indefiniteEnvelope(payload: [UInt8], chunk: Int) -> [UInt8] {
        func indefinite(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag, 0x80] + content + [0x00, 0x00] }
        let pieces = stride(from: 0, to: payload.count, by: chunk).flatMap { start in
            der { try $0.serialize(ASN1OctetString(contentBytes: payload[start..<min(start + chunk, payload.count)])) }
        }
        let version = integer(1)
        let digests = set([
            der { coder in
                try coder.appendConstructedNode(identifier: .sequence) { coder in
                    try coder.serialize([2, 16, 840, 1, 101, 3, 4, 2, 1] as ASN1ObjectIdentifier)
                    try coder.serialize(ASN1Null())
                }
            }
        ])
        let dataType = der { try $0.serialize([1, 2, 840, 113_549, 1, 7, 1] as ASN1ObjectIdentifier) }
        let encapsulated = indefinite(0x30, dataType + indefinite(0xA0, indefinite(0x24, pieces)))
        let signedData = indefinite(0x30, version + digests + encapsulated + [0x31, 0x00])
        let signedType = der { try $0.serialize([1, 2, 840, 113_549, 1, 7, 2] as ASN1ObjectIdentifier) }
        return indefinite(0x30, signedType + indefinite(0xA0, signedData))
    }

    /// `depth` constructed elements of `tag`, each holding the next (definite lengths), around `innermost`.
    static func nested(tag: UInt8, depth: Int, innermost: [UInt8] = []) -> [UInt8] {
        var headers: [[UInt8]] = []
        var length = innermost.count
        for _ in 0..<depth {
            let header = [tag] + lengthBytes(length)
            headers.append(header)
            length += header.count
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        for header in headers.reversed() { bytes += header }
        return bytes + innermost
    }

    static func lengthBytes(_ length: Int) -> [UInt8] {
        if length < 0x80 { return [UInt8(length)] }
        var value = length
        var bytes: [UInt8] = []
        while value > 0 {
            bytes.insert(UInt8(value & 0xFF), at: 0)
            value >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}

/// Two app receipts written by Xcode's StoreKit testing, from the test resources of Apple's App Store Server Library
/// for Swift (github.com/apple/app-store-server-library-swift, Tests/AppStoreServerLibraryTests/resources/xcode/
/// xcode-app-receipt-with-transaction and xcode-app-receipt-empty), used under its licence:
///
/// Copyright 2023 Apple Inc.
///
/// Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
/// documentation files (the "Software"), to deal in the Software without restriction, including without limitation
/// the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to
/// permit persons to whom the Software is furnished to do so, subject to the following conditions:
///
/// The above copyright notice and this permission notice shall be included in all copies or substantial portions of
/// the Software.
///
/// THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO
/// THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
/// AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF
/// CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS
/// IN THE SOFTWARE.
enum XcodeReceipts {
    /// The bytes of one of them (the literals are wrapped over several lines).
    static func bytes(_ text: String) -> [UInt8] {
        Array(Data(base64Encoded: text, options: .ignoreUnknownCharacters) ?? Data())
    }

    static let withTransaction = """
        MIAGCSqGSIb3DQEHAqCAMIACAQExDzANBglghkgBZQMEAgEFADCABgkqhkiG9w0BBwGggCSABIIBdjGCAXIwDwIBAAIBAQQHDAVY
        Y29kZTALAgEBAgEBBAMCAQAwNQIBAgIBAQQtDCtjb20uZXhhbXBsZS5uYXR1cmVsYWIuYmFja3lhcmRiaXJkcy5leGFtcGxlMAsC
        AQMCAQEEAwwBMTAQAgEEAgEBBAjyv/X7DwAAADAcAgEFAgEBBBQWU6vLoHZxeVVlaOg/UEG2OOKahTAKAgEIAgEBBAIWADAeAgEM
        AgEBBBYWFDIwMjMtMTAtMTlUMDE6NDU6NDBaMIGRAgERAgEBBIGIMYGFMAwCAgalAgEBBAMCAQEwFwICBqYCAQEEDgwMcGFzcy5w
        cmVtaXVtMAwCAganAgEBBAMMATAwHwICBqgCAQEEFhYUMjAyMy0xMC0xOVQwMTo0NTozNlowHwICBqwCAQEEFhYUMjAyMy0xMS0x
        OVQwMTo0NTozNlowDAICBrcCAQEEAwIBATAeAgEVAgEBBBYWFDQwMDEtMDEtMDFUMDA6MDA6MDBaAAAAAAAAoIIDeDCCA3QwggJc
        oAMCAQICAQEwDQYJKoZIhvcNAQELBQAwXzERMA8GA1UEAwwIU3RvcmVLaXQxETAPBgNVBAoMCFN0b3JlS2l0MREwDwYDVQQLDAhT
        dG9yZUtpdDELMAkGA1UEBhMCVVMxFzAVBgkqhkiG9w0BCQEWCFN0b3JlS2l0MB4XDTIwMDQwMTE3NTIzNVoXDTQwMDMyNzE3NTIz
        NVowXzERMA8GA1UEAwwIU3RvcmVLaXQxETAPBgNVBAoMCFN0b3JlS2l0MREwDwYDVQQLDAhTdG9yZUtpdDELMAkGA1UEBhMCVVMx
        FzAVBgkqhkiG9w0BCQEWCFN0b3JlS2l0MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA23+QPCxzD9uXJkuTuwr4oSE+
        yGHZJMheH3U+2pPbMRqRgLm/5QzLPLsORGIm+gQptknnb+Ab5g1ozSVuw3YI9UoLrnp0PMSpC7PPYg/7tLz324ReKOtHDfHti6z1
        n7AJOKNue8smUAoa4YnRcnYLOUzLT27As1+3lbq5qF1KdKvvb0GlfgmNuj09zXBX2O3v1dp3yJMEHO8JiHhlzoHyjXLnBxpuJhL3
        MrENuziQawbE/A3llVDNkci6JfRYyYzhcdtKRfMtGZYDVoGmRO51d1tTz3isXbo+X1ArXCmM3cLXKhffIrTX5Hior6htp8HaaC1m
        zM8pC1As48L75l8SwQIDAQABozswOTAPBgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB/wQEAwIChDAWBgNVHSUBAf8EDDAKBggrBgEF
        BQcDAzANBgkqhkiG9w0BAQsFAAOCAQEAsgDgPPHo6WK9wNYdQJ5XuTiQd3ZS0qhLcG64Z5n7s4pVn+8dKLhfKtFznzVHN7tG03YQ
        8vBp7M1imXH5YIqESDjEvYtnJbmrbDNlrdjCmnhID+nMwScNxs9kPG2AWTOMyjYGKhEbjUnOCP9mwEcoS+tawSsJViylqgkDezIx
        3OiFeEjOwMUSEWoPDK4vBcpvemR/ICx15kyxEtP94x9eDX24WNegfOR/Y6uXmivDKtjQsuHVWg05G29nKKkSg9aHeG2ZvV6zCuCY
        zvbqw45taeu3QIE9hz1wUdHEXY2l3H9qWBreYHY3Uuz/rBldDBUvig/1icjXKx0e7CuRBac9TzGCAY8wggGLAgEBMGQwXzERMA8G
        A1UEAwwIU3RvcmVLaXQxETAPBgNVBAoMCFN0b3JlS2l0MREwDwYDVQQLDAhTdG9yZUtpdDELMAkGA1UEBhMCVVMxFzAVBgkqhkiG
        9w0BCQEWCFN0b3JlS2l0AgEBMA0GCWCGSAFlAwQCAQUAMA0GCSqGSIb3DQEBCwUABIIBAMNY9TpOCg59NnKdDA6Xc4D74lEaa+Yw
        QqD/z8ajAGxpw3efoQRvx8Q1qR6IVs9BcRYGyJmsFrau19QeSIRjjqaxhV8ZbRFenWp0Yps6OCPVHw94Ej3AstAL/8WIArBM1OS6
        OZJESJdQz5xpwavWLGm1rU2730glMdHzHfm2h0wNp/0BKV0ugV9SRQN4RsyAMNS+rCO1mtSDI6nx8E+dEVMIa4mUg+yhXRlg6Kzd
        zKWnr9vDtRVmhdq0ANfP+jfvncsyC+d/c3cAsXOK066hKFwYWTKaRZ7M2eXus5TcU83/aaovHyKVyKKCRnKuP7VPt9d5eWLSg/7v
        2ctHJtjmhqsAAAAAAAA=
        """

    static let empty = """
        MIAGCSqGSIb3DQEHAqCAMIACAQExDzANBglghkgBZQMEAgEFADCABgkqhkiG9w0BBwGggCSABIHhMYHeMA8CAQACAQEEBwwFWGNv
        ZGUwCwIBAQIBAQQDAgEAMDUCAQICAQEELQwrY29tLmV4YW1wbGUubmF0dXJlbGFiLmJhY2t5YXJkYmlyZHMuZXhhbXBsZTALAgED
        AgEBBAMMATEwEAIBBAIBAQQI0bz+zwQAAAAwHAIBBQIBAQQU4nEwK24WxZhKi0PSGTYgWoXOIqMwCgIBCAIBAQQCFgAwHgIBDAIB
        AQQWFhQyMDIzLTEwLTE5VDAxOjE4OjU0WjAeAgEVAgEBBBYWFDQwMDEtMDEtMDFUMDA6MDA6MDBaAAAAAAAAoIIDeDCCA3QwggJc
        oAMCAQICAQEwDQYJKoZIhvcNAQELBQAwXzERMA8GA1UEAwwIU3RvcmVLaXQxETAPBgNVBAoMCFN0b3JlS2l0MREwDwYDVQQLDAhT
        dG9yZUtpdDELMAkGA1UEBhMCVVMxFzAVBgkqhkiG9w0BCQEWCFN0b3JlS2l0MB4XDTIwMDQwMTE3NTIzNVoXDTQwMDMyNzE3NTIz
        NVowXzERMA8GA1UEAwwIU3RvcmVLaXQxETAPBgNVBAoMCFN0b3JlS2l0MREwDwYDVQQLDAhTdG9yZUtpdDELMAkGA1UEBhMCVVMx
        FzAVBgkqhkiG9w0BCQEWCFN0b3JlS2l0MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA23+QPCxzD9uXJkuTuwr4oSE+
        yGHZJMheH3U+2pPbMRqRgLm/5QzLPLsORGIm+gQptknnb+Ab5g1ozSVuw3YI9UoLrnp0PMSpC7PPYg/7tLz324ReKOtHDfHti6z1
        n7AJOKNue8smUAoa4YnRcnYLOUzLT27As1+3lbq5qF1KdKvvb0GlfgmNuj09zXBX2O3v1dp3yJMEHO8JiHhlzoHyjXLnBxpuJhL3
        MrENuziQawbE/A3llVDNkci6JfRYyYzhcdtKRfMtGZYDVoGmRO51d1tTz3isXbo+X1ArXCmM3cLXKhffIrTX5Hior6htp8HaaC1m
        zM8pC1As48L75l8SwQIDAQABozswOTAPBgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB/wQEAwIChDAWBgNVHSUBAf8EDDAKBggrBgEF
        BQcDAzANBgkqhkiG9w0BAQsFAAOCAQEAsgDgPPHo6WK9wNYdQJ5XuTiQd3ZS0qhLcG64Z5n7s4pVn+8dKLhfKtFznzVHN7tG03YQ
        8vBp7M1imXH5YIqESDjEvYtnJbmrbDNlrdjCmnhID+nMwScNxs9kPG2AWTOMyjYGKhEbjUnOCP9mwEcoS+tawSsJViylqgkDezIx
        3OiFeEjOwMUSEWoPDK4vBcpvemR/ICx15kyxEtP94x9eDX24WNegfOR/Y6uXmivDKtjQsuHVWg05G29nKKkSg9aHeG2ZvV6zCuCY
        zvbqw45taeu3QIE9hz1wUdHEXY2l3H9qWBreYHY3Uuz/rBldDBUvig/1icjXKx0e7CuRBac9TzGCAY8wggGLAgEBMGQwXzERMA8G
        A1UEAwwIU3RvcmVLaXQxETAPBgNVBAoMCFN0b3JlS2l0MREwDwYDVQQLDAhTdG9yZUtpdDELMAkGA1UEBhMCVVMxFzAVBgkqhkiG
        9w0BCQEWCFN0b3JlS2l0AgEBMA0GCWCGSAFlAwQCAQUAMA0GCSqGSIb3DQEBCwUABIIBAIjP3bmY+TrOM0e8n7PeH3OEies1+spN
        T1n8om4424n/NyIJ9XRyj1QGxshxh6p2BQuUQV8mkWKpHYQJqPobVEcl72ndbHSfzkH2vM57jy/2bCopLt+zWQl0QMA9iKEB3G07
        5wgyD6lcSveZnER/4J6E9+tO6O3R2YFVziwL2UmNR1XgfOhKyNwCfSV1CyVVoSUkkZI7fJ1S6Pce2nLKM1pf+oCWr5vAySd9E4gi
        vt/YagGJF+3RHZMEcrqHnnP8kQKi99xnXcIfYyK6VMD9uBb2+4N7MCRDhoY/8+vX9I75paW0UicS6MwacJPueNxLaAboOP4nFSlY
        hEhZuLiZrdIAAAAAAAA=
        """
}
