import Foundation
import SwiftASN1

/// Reads the three layers of a legacy app receipt with swift-asn1's BER parser: the PKCS#7 ContentInfo, the receipt
/// payload in its encapsulated content, and each in-app purchase. Every layer is scanned for depth first
/// (``BERDepthScan``), so deep nesting is refused before the parser sees it.
enum LegacyReceiptReader {
    typealias Reason = AppleLegacyReceipt.FailureReason

    /// `id-signedData` (RFC 5652).
    static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    /// `id-data` (RFC 5652).
    static let dataOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]
    /// `[0]`, as `ContentInfo.content` and `EncapsulatedContentInfo.eContent` are tagged (EXPLICIT).
    static let contextZero = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)

    /// Attribute types (Apple's "Receipt Fields").
    enum Field {
        static let receiptType: Int64 = 0
        static let bundleId: Int64 = 2
        static let applicationVersion: Int64 = 3
        static let creationDate: Int64 = 12
        static let inAppPurchase: Int64 = 17
        static let originalApplicationVersion: Int64 = 19
        static let expirationDate: Int64 = 21
        static let quantity: Int64 = 1701
        static let productId: Int64 = 1702
        static let transactionId: Int64 = 1703
        static let purchaseDate: Int64 = 1704
        static let originalTransactionId: Int64 = 1705
        static let originalPurchaseDate: Int64 = 1706
        static let expiresDate: Int64 = 1708
        static let webOrderLineItemId: Int64 = 1711
        static let cancellationDate: Int64 = 1712
    }

    /// One `ReceiptAttribute`: its type and the bytes of its OCTET STRING value.
    struct Attribute {
        var type: Int64
        var value: ArraySlice<UInt8>
    }

    static func failure(_ reason: Reason, _ message: String) -> StoreAdapterError {
        AppleLegacyReceipt.failure(reason, message)
    }

    /// The whole receipt.
    static func receipt(_ bytes: ArraySlice<UInt8>) throws(StoreAdapterError) -> AppleLegacyReceipt {
        let payload = try signedContent(bytes)
        var fields = FieldReader(scope: "the receipt")
        var purchases: [AppleLegacyReceipt.InAppPurchase] = []
        for attribute in try attributes(payload, what: "the receipt payload") {
            switch attribute.type {
            case Field.inAppPurchase:
                purchases.append(try inAppPurchase(attribute.value))
            case Field.receiptType, Field.bundleId, Field.applicationVersion, Field.originalApplicationVersion,
                Field.creationDate, Field.expirationDate:
                try fields.keep(attribute)
            default:
                continue  // Apple's own fields (opaque value, SHA-1 hash, …): ignored, as Apple asks.
            }
        }
        guard let bundleId = try fields.string(Field.bundleId) else {
            throw failure(.missingField, "the receipt has no bundle id (field 2)")
        }
        return AppleLegacyReceipt(
            bundleId: bundleId,
            applicationVersion: try fields.string(Field.applicationVersion),
            originalApplicationVersion: try fields.string(Field.originalApplicationVersion),
            receiptType: try fields.string(Field.receiptType),
            creationDate: try fields.date(Field.creationDate),
            expirationDate: try fields.date(Field.expirationDate),
            inAppPurchases: purchases
        )
    }

    /// One in-app purchase (the value of a type-17 attribute).
    static func inAppPurchase(_ bytes: ArraySlice<UInt8>) throws(StoreAdapterError) -> AppleLegacyReceipt.InAppPurchase
    {
        var fields = FieldReader(scope: "an in-app purchase")
        for attribute in try attributes(bytes, what: "an in-app purchase") {
            switch attribute.type {
            case Field.quantity, Field.productId, Field.transactionId, Field.purchaseDate, Field.originalTransactionId,
                Field.originalPurchaseDate, Field.expiresDate, Field.webOrderLineItemId, Field.cancellationDate:
                try fields.keep(attribute)
            default:
                continue
            }
        }
        guard let transactionId = try fields.string(Field.transactionId) else {
            throw failure(.missingField, "an in-app purchase has no transaction id (field 1703)")
        }
        return AppleLegacyReceipt.InAppPurchase(
            productId: try fields.string(Field.productId),
            transactionId: transactionId,
            originalTransactionId: try fields.string(Field.originalTransactionId),
            purchaseDate: try fields.date(Field.purchaseDate),
            originalPurchaseDate: try fields.date(Field.originalPurchaseDate),
            expiresDate: try fields.date(Field.expiresDate),
            cancellationDate: try fields.date(Field.cancellationDate),
            quantity: try fields.integer(Field.quantity).map { Int($0) },
            webOrderLineItemId: try fields.integer(Field.webOrderLineItemId).map { String($0) }
        )
    }

    // MARK: - PKCS#7

    /// The encapsulated content of a PKCS#7 `SignedData` ContentInfo (RFC 5652 §3, §5.1, §5.2): the OCTET STRING of
    /// `encapContentInfo.eContent`, flattened when BER splits it into chunks. The certificates and signer infos that
    /// follow are not read.
    static func signedContent(_ bytes: ArraySlice<UInt8>) throws(StoreAdapterError) -> ArraySlice<UInt8> {
        let root = try parse(bytes, what: "the receipt")
        guard root.identifier == .sequence, case .constructed(let contentInfo) = root.content else {
            throw failure(.notPKCS7, "the receipt is not a PKCS#7 ContentInfo")
        }
        var parts = contentInfo.makeIterator()
        guard let type = parts.next(), (try? ASN1ObjectIdentifier(berEncoded: type)) == signedDataOID else {
            throw failure(.notPKCS7, "the receipt is not PKCS#7 signed data")
        }
        guard let wrapped = parts.next(), let signedData = single(in: wrapped, tagged: contextZero),
            signedData.identifier == .sequence, case .constructed(let signedDataFields) = signedData.content
        else {
            throw failure(.notPKCS7, "the receipt's content is not a SignedData")
        }
        var fields = signedDataFields.makeIterator()
        guard let version = fields.next(), version.identifier == .integer,
            let digestAlgorithms = fields.next(), digestAlgorithms.identifier == .set,
            let encapsulated = fields.next(), encapsulated.identifier == .sequence,
            case .constructed(let encapsulatedFields) = encapsulated.content
        else {
            throw failure(.notPKCS7, "the receipt's SignedData has no encapsulated content info")
        }
        var content = encapsulatedFields.makeIterator()
        guard let contentType = content.next(), (try? ASN1ObjectIdentifier(berEncoded: contentType)) == dataOID else {
            throw failure(.notAReceipt, "the signed content is not data")
        }
        guard let eContent = content.next(), let octets = single(in: eContent, tagged: contextZero),
            let payload = try? ASN1OctetString(berEncoded: octets)
        else {
            throw failure(.noContent, "the SignedData carries no content (a detached signature)")
        }
        return payload.bytes
    }

    /// The only element inside an EXPLICIT tag, or nil.
    static func single(in node: ASN1Node, tagged identifier: ASN1Identifier) -> ASN1Node? {
        guard node.identifier == identifier, case .constructed(let children) = node.content else { return nil }
        var iterator = children.makeIterator()
        guard let only = iterator.next(), iterator.next() == nil else { return nil }
        return only
    }

    // MARK: - Attributes

    /// The attributes of a payload or an in-app purchase: a SET of `SEQUENCE { INTEGER, INTEGER, OCTET STRING }`.
    static func attributes(_ bytes: ArraySlice<UInt8>, what: String) throws(StoreAdapterError) -> [Attribute] {
        let set = try parse(bytes, what: what)
        guard set.identifier == .set, case .constructed(let elements) = set.content else {
            throw failure(.notAReceipt, "\(what) is not a SET of receipt attributes")
        }
        var attributes: [Attribute] = []
        for element in elements {
            guard element.identifier == .sequence, case .constructed(let parts) = element.content else {
                throw failure(.notAReceipt, "\(what) holds something other than a receipt attribute")
            }
            var iterator = parts.makeIterator()
            guard let typeNode = iterator.next(), let type = try? Int64(berEncoded: typeNode),
                let versionNode = iterator.next(), versionNode.identifier == .integer,
                let valueNode = iterator.next(), let value = try? ASN1OctetString(berEncoded: valueNode),
                iterator.next() == nil
            else {
                throw failure(.notAReceipt, "\(what) holds an attribute that is not {type, version, value}")
            }
            attributes.append(Attribute(type: type, value: value.bytes))
        }
        return attributes
    }

    /// Parses one BER element after checking its depth; swift-asn1's errors become reasons.
    static func parse(_ bytes: ArraySlice<UInt8>, what: String) throws(StoreAdapterError) -> ASN1Node {
        guard !bytes.isEmpty else { throw failure(.truncated, "\(what) is empty") }
        switch BERDepthScan.exceeds(bytes, limit: AppleLegacyReceipt.maximumDepth) {
        case .tooDeep:
            throw failure(
                .nestingTooDeep,
                "\(what) nests ASN.1 deeper than \(AppleLegacyReceipt.maximumDepth) levels"
            )
        case .withinLimit:
            break
        }
        do {
            return try BER.parse(bytes)
        } catch let error as ASN1Error where error.code == .truncatedASN1Field {
            throw failure(.truncated, "\(what) ends inside an ASN.1 element")
        } catch {
            throw failure(.malformedASN1, "\(what) is not valid BER")
        }
    }
}

/// The known fields of one attribute set, kept raw until read with their documented type.
struct FieldReader {
    /// "the receipt" or "an in-app purchase", for messages.
    let scope: String
    private var values: [Int64: ArraySlice<UInt8>] = [:]

    init(scope: String) {
        self.scope = scope
    }

    /// Keeps a known field; a second one of the same type is refused.
    mutating func keep(_ attribute: LegacyReceiptReader.Attribute) throws(StoreAdapterError) {
        guard values.updateValue(attribute.value, forKey: attribute.type) == nil else {
            throw malformed(attribute.type, "appears twice")
        }
    }

    /// A UTF8String field.
    func string(_ type: Int64) throws(StoreAdapterError) -> String? {
        guard let node = try node(type) else { return nil }
        guard let text = try? ASN1UTF8String(berEncoded: node),
            let string = String(validating: text.bytes, as: UTF8.self)
        else {
            throw malformed(type, "is not a UTF8String")
        }
        return string
    }

    /// An IA5String field holding an RFC 3339 date; an empty string is no date.
    func date(_ type: Int64) throws(StoreAdapterError) -> Date? {
        guard let node = try node(type) else { return nil }
        guard let text = try? ASN1IA5String(berEncoded: node) else {
            throw malformed(type, "is not an IA5String")
        }
        if text.bytes.isEmpty { return nil }
        guard let date = RFC3339Date.parse(text.bytes) else {
            throw malformed(type, "is not an RFC 3339 date")
        }
        return date
    }

    /// An INTEGER field (64 bits at most).
    func integer(_ type: Int64) throws(StoreAdapterError) -> Int64? {
        guard let node = try node(type) else { return nil }
        guard let value = try? Int64(berEncoded: node) else {
            throw malformed(type, "is not an INTEGER of 64 bits or fewer")
        }
        return value
    }

    /// The single ASN.1 element a field's OCTET STRING holds.
    private func node(_ type: Int64) throws(StoreAdapterError) -> ASN1Node? {
        guard let bytes = values[type] else { return nil }
        guard !bytes.isEmpty, BERDepthScan.exceeds(bytes, limit: AppleLegacyReceipt.maximumDepth) == .withinLimit,
            let node = try? BER.parse(bytes)
        else {
            throw malformed(type, "does not hold one ASN.1 value")
        }
        return node
    }

    private func malformed(_ type: Int64, _ problem: String) -> StoreAdapterError {
        AppleLegacyReceipt.failure(.malformedField, "field \(type) of \(scope) \(problem)")
    }
}

/// Measures BER nesting without recursion or allocation beyond one stack of container ends, so a deeply nested input
/// is refused before swift-asn1's recursive parser runs. It only measures: malformed or truncated input stops the scan
/// (the parser then reports it).
enum BERDepthScan {
    enum Result: Equatable {
        case withinLimit
        case tooDeep
    }

    static func exceeds(_ bytes: ArraySlice<UInt8>, limit: Int) -> Result {
        // The end index of each open container; nil for an indefinite-length one (closed by 00 00).
        var open: [Int?] = []
        var index = bytes.startIndex
        let end = bytes.endIndex
        while index < end {
            while let last = open.last, let containerEnd = last, index >= containerEnd { open.removeLast() }
            if let last = open.last, last == nil, bytes[index] == 0, index + 1 < end, bytes[index + 1] == 0 {
                open.removeLast()
                index += 2
                continue
            }
            let identifier = bytes[index]
            index += 1
            if identifier & 0x1F == 0x1F {
                // Long-form tag number: base-128 bytes, the last without the top bit.
                while index < end, bytes[index] & 0x80 != 0 { index += 1 }
                index += 1
            }
            guard index < end else { return .withinLimit }
            let first = bytes[index]
            index += 1
            var length: Int? = Int(first)
            if first == 0x80 {
                length = nil
            } else if first & 0x80 != 0 {
                let count = Int(first & 0x7F)
                guard count <= 8, end - index >= count else { return .withinLimit }
                var value: UInt64 = 0
                for byte in bytes[index..<(index + count)] { value = value << 8 | UInt64(byte) }
                index += count
                length = Int(clamping: min(value, UInt64(end - index)))
            }
            if identifier & 0x20 != 0 {
                open.append(length.map { index + $0 })
                if open.count > limit { return .tooDeep }
            } else {
                guard let length else { return .withinLimit }  // A primitive cannot be indefinite.
                index += min(length, end - index)
            }
        }
        return .withinLimit
    }
}

/// RFC 3339 date-times as receipts write them: `2023-10-19T01:45:36Z`, with optional fractional seconds and a
/// `±hh:mm` (or `±hhmm`, as some StoreKit test receipts write) offset.
enum RFC3339Date {
    static func parse(_ text: ArraySlice<UInt8>) -> Date? {
        let bytes = Array(text)
        guard bytes.count >= 20, bytes.count <= 40 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == 0x2D, let month = number(5, 2), bytes[7] == 0x2D,
            let day = number(8, 2), [0x54, 0x74, 0x20].contains(bytes[10]), let hour = number(11, 2),
            bytes[13] == 0x3A, let minute = number(14, 2), bytes[16] == 0x3A, let second = number(17, 2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        var index = 19
        var nanoseconds = 0
        if bytes[index] == 0x2E {
            index += 1
            var digits = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                if digits < 9 { nanoseconds = nanoseconds * 10 + Int(bytes[index] - 0x30) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            var scale = min(digits, 9)
            while scale < 9 {
                nanoseconds *= 10
                scale += 1
            }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case 0x5A, 0x7A:  // Z
            index += 1
        case 0x2B, 0x2D:  // + -
            let sign = bytes[index] == 0x2D ? -1 : 1
            index += 1
            let colon = bytes.count - index == 5
            guard bytes.count - index == (colon ? 5 : 4), let hours = number(index, 2),
                !colon || bytes[index + 2] == 0x3A, let minutes = number(index + (colon ? 3 : 2), 2),
                hours < 24, minutes < 60
            else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
            index = bytes.count
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(nanoseconds) / 1_000_000_000)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
