public import Foundation

/// Base64url without padding (RFC 7515 §2), as JWS and JWT use it: the one implementation every OpenCat package
/// shares. Decoding accepts the canonical spelling only and works straight from UTF-8 bytes, without intermediate
/// strings.
public enum Base64URL {
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let urlTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in urlAlphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Decodes unpadded base64url, canonical form only.
    /// - Returns: `nil` for characters outside the alphabet, padding, an impossible length, or non-zero bits after
    ///   the last byte (RFC 4648 §3.5: such a segment has a second spelling of the same bytes; a JWS has one).
    public static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = input.count
        guard count % 4 != 1 else { return nil }
        let outputCount = count * 3 / 4
        var valid = true
        let output = urlTable.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
                var accumulator: UInt32 = 0
                var bits: UInt32 = 0
                var written = 0
                for byte in input {
                    let value = table[Int(byte)]
                    if value == 0xFF {
                        valid = false
                        break
                    }
                    accumulator = (accumulator << 6) | UInt32(value)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        buffer[written] = UInt8(truncatingIfNeeded: accumulator >> bits)
                        written += 1
                    }
                }
                if bits > 0, accumulator & ((1 << bits) - 1) != 0 { valid = false }
                initialized = valid ? written : 0
            }
        }
        return valid ? output : nil
    }

    /// Encodes bytes as unpadded base64url.
    public static func encode<Bytes: Sequence>(_ input: Bytes) -> String where Bytes.Element == UInt8 {
        var output = [UInt8]()
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in input {
            accumulator = (accumulator << 8) | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(urlAlphabet[Int((accumulator >> UInt32(bits)) & 0x3F)])
            }
        }
        if bits > 0 { output.append(urlAlphabet[Int((accumulator << UInt32(6 - bits)) & 0x3F)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Encodes the UTF-8 bytes of a text as unpadded base64url.
    public static func encode(_ text: String) -> String { encode(Array(text.utf8)) }

    /// Decodes unpadded, canonical base64url text.
    /// - Returns: `nil` for anything else (the same rules as the byte-buffer form).
    public static func decode(_ text: some StringProtocol) -> Data? {
        Array(text.utf8).withUnsafeBufferPointer { decode($0).map { Data($0) } }
    }
}
