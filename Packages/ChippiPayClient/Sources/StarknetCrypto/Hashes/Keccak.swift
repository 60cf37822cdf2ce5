/// Keccak-256 with the original padding (0x01 … 0x80), as Ethereum and Starknet use it — not NIST SHA3-256.
public enum Keccak256 {
    static let roundConstants: [UInt64] = [
        0x0000_0000_0000_0001, 0x0000_0000_0000_8082, 0x8000_0000_0000_808A, 0x8000_0000_8000_8000,
        0x0000_0000_0000_808B, 0x0000_0000_8000_0001, 0x8000_0000_8000_8081, 0x8000_0000_0000_8009,
        0x0000_0000_0000_008A, 0x0000_0000_0000_0088, 0x0000_0000_8000_8009, 0x0000_0000_8000_000A,
        0x0000_0000_8000_808B, 0x8000_0000_0000_008B, 0x8000_0000_0000_8089, 0x8000_0000_0000_8003,
        0x8000_0000_0000_8002, 0x8000_0000_0000_0080, 0x0000_0000_0000_800A, 0x8000_0000_8000_000A,
        0x8000_0000_8000_8081, 0x8000_0000_0000_8080, 0x0000_0000_8000_0001, 0x8000_0000_8000_8008,
    ]
    /// Rotation offsets, indexed by x + 5·y.
    static let rotations: [UInt64] = [
        0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
    ]
    static let rate = 136

    /// The 32-byte digest of `data`.
    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        var state = [UInt64](repeating: 0, count: 25)
        var block = Array(data)
        block.append(0x01)
        while block.count % rate != 0 { block.append(0) }
        block[block.count - 1] |= 0x80
        var offset = 0
        while offset < block.count {
            for lane in 0..<(rate / 8) {
                var word: UInt64 = 0
                for byte in 0..<8 { word |= UInt64(block[offset + lane * 8 + byte]) << UInt64(8 * byte) }
                state[lane] ^= word
            }
            permute(&state)
            offset += rate
        }
        var digest: [UInt8] = []
        for lane in 0..<4 {
            for byte in 0..<8 { digest.append(UInt8(truncatingIfNeeded: state[lane] >> UInt64(8 * byte))) }
        }
        return digest
    }

    static func permute(_ a: inout [UInt64]) {
        var b = [UInt64](repeating: 0, count: 25)
        var c = [UInt64](repeating: 0, count: 5)
        for round in 0..<24 {
            for x in 0..<5 { c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] }
            for x in 0..<5 {
                let d = c[(x + 4) % 5] ^ rotate(c[(x + 1) % 5], 1)
                for y in 0..<5 { a[x + 5 * y] ^= d }
            }
            for x in 0..<5 {
                for y in 0..<5 {
                    b[y + 5 * ((2 * x + 3 * y) % 5)] = rotate(a[x + 5 * y], rotations[x + 5 * y])
                }
            }
            for x in 0..<5 {
                for y in 0..<5 {
                    a[x + 5 * y] = b[x + 5 * y] ^ (~b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y])
                }
            }
            a[0] ^= roundConstants[round]
        }
    }

    @inline(__always)
    static func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        count == 0 ? value : (value << count) | (value >> (64 - count))
    }
}

/// Starknet's `starknet_keccak` and entry-point selectors.
public enum StarknetKeccak {
    static let mask = (UInt256.one << 250) &- .one

    /// Keccak-256 of `data` truncated to its 250 least significant bits.
    public static func hash(_ data: some Collection<UInt8>) -> Felt {
        let digest = (try? UInt256(bigEndianBytes: Keccak256.hash(data))) ?? .zero
        return Felt(unchecked: digest & mask)
    }

    /// The selector of an entry point: `starknet_keccak(name)`, and 0 for `__default__` and `__l1_default__`.
    public static func selector(_ name: String) -> Felt {
        if name == "__default__" || name == "__l1_default__" { return .zero }
        return hash(Array(name.utf8))
    }
}
