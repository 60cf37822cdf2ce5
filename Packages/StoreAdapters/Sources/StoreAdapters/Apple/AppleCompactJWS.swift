import Crypto
import Foundation
import OpenCatCore

/// The three segments of a compact JWS, located in one contiguous copy of its UTF-8 bytes.
struct AppleCompactJWS {
    /// The whole JWS.
    private let bytes: [UInt8]
    /// The protected header (base64url).
    let header: Range<Int>
    /// The payload (base64url).
    let payload: Range<Int>
    /// The signature (base64url).
    let signature: Range<Int>
    /// `header.payload`: the bytes the signature covers.
    let signingInput: Range<Int>

    /// Splits a compact JWS.
    /// - Parameter maximumBytes: the largest JWS accepted, checked before anything is copied or decoded.
    /// - Throws: `invalidProof` / ``AppleJWSCheck/tooLarge`` over the size, ``AppleJWSCheck/malformedJWS`` unless
    ///   there are exactly three non-empty segments.
    init(_ text: String, maximumBytes: Int = .max) throws {
        guard text.utf8.count <= maximumBytes else {
            throw AppleJWSCheck.tooLarge.error("the signed data is larger than \(maximumBytes) bytes")
        }
        let bytes = Array(text.utf8)
        let dots: (Int, Int)? = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress,
                let first = memchr(base, Int32(UInt8(ascii: ".")), buffer.count)
            else { return nil }
            let firstOffset = UnsafePointer<UInt8>(first.assumingMemoryBound(to: UInt8.self)) - base
            let rest = buffer.count - firstOffset - 1
            guard let second = memchr(base + firstOffset + 1, Int32(UInt8(ascii: ".")), rest) else { return nil }
            let secondOffset = UnsafePointer<UInt8>(second.assumingMemoryBound(to: UInt8.self)) - base
            let tail = buffer.count - secondOffset - 1
            guard memchr(base + secondOffset + 1, Int32(UInt8(ascii: ".")), tail) == nil else { return nil }
            return (firstOffset, secondOffset)
        }
        guard let (first, second) = dots else {
            throw AppleJWSCheck.malformedJWS.error(
                "the signed data is not a compact JWS (three dot-separated segments)"
            )
        }
        self.bytes = bytes
        header = 0..<first
        payload = (first + 1)..<second
        signature = (second + 1)..<bytes.count
        signingInput = 0..<second
        guard !header.isEmpty, !payload.isEmpty, !signature.isEmpty else {
            throw AppleJWSCheck.malformedJWS.error("the signed data has an empty JWS segment")
        }
    }

    /// Calls `body` with the bytes of a segment.
    func withBytes<Result>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows
        -> Result
    {
        try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// The base64url-decoded bytes of a segment, or `nil` if it is not base64url.
    func decoded(_ range: Range<Int>) -> [UInt8]? {
        withBytes(range) { Base64URL.decode($0) }
    }

    /// Whether `signature` is a valid ES256 signature of ``signingInput`` by `publicKey`.
    func isSigned(with signature: P256.Signing.ECDSASignature, by publicKey: P256.Signing.PublicKey) -> Bool {
        withBytes(signingInput) { publicKey.isValidSignature(signature, for: UnsafeRawBufferPointer($0)) }
    }
}
