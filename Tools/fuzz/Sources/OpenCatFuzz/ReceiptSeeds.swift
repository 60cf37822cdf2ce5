import Foundation

/// Seeds of the `apple-receipt` target: legacy App Store app receipts (PKCS#7 SignedData around a SET of receipt
/// attributes), DER and the BER indefinite-length form App Store receipts use, and one in base64. Encoded here with a
/// few lines of TLV, so the fuzz package needs no ASN.1 dependency of its own.
enum ReceiptSeeds {
    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var value = count
        var bytes: [UInt8] = []
        while value > 0 {
            bytes.insert(UInt8(value & 0xFF), at: 0)
            value >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag] + length(content.count) + content }
    static func indefinite(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag, 0x80] + content + [0, 0] }

    static func integer(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        } while rest > 0
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return tlv(0x02, bytes)
    }

    static func utf8(_ text: String) -> [UInt8] { tlv(0x0C, Array(text.utf8)) }
    static func ia5(_ text: String) -> [UInt8] { tlv(0x16, Array(text.utf8)) }
    static func attribute(_ type: Int, _ value: [UInt8]) -> [UInt8] {
        tlv(0x30, integer(type) + integer(1) + tlv(0x04, value))
    }

    static let signedDataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    static let dataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
    static let sha256: [UInt8] = tlv(
        0x30,
        [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00]
    )

    static func purchase(_ index: Int, subscription: Bool) -> [UInt8] {
        let id = String(1_000_000_000_000_000 + index)
        var fields = [
            attribute(1701, integer(1)),
            attribute(1702, utf8(subscription ? "dev.opencat.fuzz.monthly" : "dev.opencat.fuzz.gems\(index)")),
            attribute(1703, utf8(id)),
            attribute(1705, utf8(subscription ? "1000000000000000" : id)),
            attribute(1704, ia5("2026-11-0\(index % 9 + 1)T10:00:00Z")),
            attribute(1706, ia5("2026-01-01T10:00:00.250+02:00")),
            attribute(1712, ia5("")),
        ]
        if subscription {
            fields += [
                attribute(1708, ia5("2026-12-0\(index % 9 + 1)T10:00:00+0000")),
                attribute(1711, integer(230_000_000_000_000 + index)),
                attribute(1719, integer(0)),
            ]
        }
        return tlv(0x31, fields.flatMap { $0 })
    }

    static func payload(purchases: Int) -> [UInt8] {
        var attributes = [
            attribute(0, utf8("ProductionSandbox")),
            attribute(2, utf8("dev.opencat.fuzz")),
            attribute(3, utf8("42")),
            attribute(4, [0x57, 0xFF, 0xAE, 0xFF, 0x04, 0, 0, 0]),
            attribute(5, [UInt8](repeating: 0x5A, count: 20)),
            attribute(12, ia5("2026-11-22T12:00:00Z")),
            attribute(19, utf8("1.0")),
            attribute(21, ia5("4001-01-01T00:00:00Z")),
        ]
        for index in 0..<purchases { attributes.append(attribute(17, purchase(index, subscription: index % 2 == 1))) }
        return tlv(0x31, attributes.flatMap { $0 })
    }

    /// SignedData with no certificates and an empty set of signer infos, DER.
    static func der(_ payload: [UInt8]) -> [UInt8] {
        let encapsulated = tlv(0x30, dataOID + tlv(0xA0, tlv(0x04, payload)))
        let signedData = tlv(0x30, integer(1) + tlv(0x31, sha256) + encapsulated + [0x31, 0x00])
        return tlv(0x30, signedDataOID + tlv(0xA0, signedData))
    }

    /// The same as App Store receipts write it: indefinite lengths, the payload in a constructed OCTET STRING.
    static func ber(_ payload: [UInt8], chunk: Int) -> [UInt8] {
        let pieces = stride(from: 0, to: payload.count, by: chunk).flatMap { start in
            tlv(0x04, Array(payload[start..<min(start + chunk, payload.count)]))
        }
        let encapsulated = indefinite(0x30, dataOID + indefinite(0xA0, indefinite(0x24, pieces)))
        let signedData = indefinite(0x30, integer(1) + tlv(0x31, sha256) + encapsulated + [0x31, 0x00])
        return indefinite(0x30, signedDataOID + indefinite(0xA0, signedData))
    }

    static func all() -> [Data] {
        var seeds: [Data] = []
        for purchases in [0, 1, 2, 5] {
            let payload = payload(purchases: purchases)
            seeds.append(Data(der(payload)))
            seeds.append(Data(ber(payload, chunk: 64)))
        }
        seeds.append(Data(Data(der(payload(purchases: 2))).base64EncodedString(options: .lineLength64Characters).utf8))
        return seeds
    }
}
