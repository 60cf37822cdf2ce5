public import OpenCatCore

/// A Stark private key: a scalar in [1, N). Its description never shows the value.
public struct StarkPrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let scalar: UInt256

    /// A key from `0x` hexadecimal text kept in a `Secret`.
    public init(hex secret: Secret<String>) throws(StarknetCryptoError) {
        guard let value = try? UInt256(hex: secret.revealed.trimmingWhitespace) else {
            throw StarknetCryptoError(.invalidPrivateKey, "the private key is not hexadecimal")
        }
        try self.init(value)
    }

    /// A key from its 32 big-endian bytes.
    public init(bytes secret: Secret<[UInt8]>) throws(StarknetCryptoError) {
        guard let value = try? UInt256(bigEndianBytes: secret.revealed) else {
            throw StarknetCryptoError(.invalidPrivateKey, "the private key is longer than 32 bytes")
        }
        try self.init(value)
    }

    init(_ value: UInt256) throws(StarknetCryptoError) {
        guard !value.isZero, value < StarkCurve.order else {
            throw StarknetCryptoError(.invalidPrivateKey, "the private key must be in [1, N) for the curve order N")
        }
        scalar = value
    }

    /// A fresh key from the system's secure random generator.
    public static func generate() -> StarkPrivateKey {
        var generator = SystemRandomNumberGenerator()
        while true {
            let candidate = UInt256(
                w0: generator.next(),
                w1: generator.next(),
                w2: generator.next(),
                w3: generator.next() & 0x0FFF_FFFF_FFFF_FFFF
            )
            if let key = try? StarkPrivateKey(candidate) { return key }
        }
    }

    /// The key's 32 big-endian bytes, for sealing into storage.
    public var secretBytes: Secret<[UInt8]> { Secret(scalar.bigEndianBytes) }

    /// The key's `0x` hex, for sealing into storage.
    public var secretHex: Secret<String> { Secret(scalar.hexString) }

    /// The Stark public key: the x coordinate of d·G.
    public var publicKey: Felt {
        Felt(StarkCurve.generatorTable.multiply(scalar).affine.x)
    }

    /// A placeholder: the key itself is never printed.
    public var description: String { "StarkPrivateKey(\(Secret<String>.placeholder))" }
    /// The same placeholder as `description`: the key is never printed, not even by `debugPrint` or `dump`.
    public var debugDescription: String { description }
    /// No children: `dump` and debuggers show nothing of the key.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// A Starknet ECDSA signature (r, s).
public struct StarkSignature: Sendable, Hashable, Codable {
    /// r: the x coordinate of k·G, below 2²⁵¹.
    public let r: Felt
    /// s: (z + r·d)/k mod N.
    public let s: Felt

    /// A signature from its two components.
    public init(r: Felt, s: Felt) {
        self.r = r
        self.s = s
    }
}

extension String {
    var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
