import Crypto

/// Starknet's ECDSA over the STARK curve, bit for bit as cairo-lang, starknet-rs and starknet.js sign.
///
/// The nonce k is RFC 6979 with HMAC-SHA256 and **no extra entropy** (cairo-lang's `sign(msg, key)` with no seed,
/// starknet-rs `sign(key, msg, k)` with k from `rfc6979_generate_k(msg, key, None)`, starknet.js): a hash that is
/// 1–4 bits short of a byte boundary (bit length ≥ 248) is shifted left by four bits first, as elliptic.js did. A k
/// that yields an unusable r or s is replaced by the next one with seed 1, 2, …, as cairo-lang does.
public enum StarkECDSA {
    static let maximumBits = 251

    /// Signs a message hash below 2²⁵¹.
    public static func sign(_ hash: Felt, with key: StarkPrivateKey) throws(StarknetCryptoError) -> StarkSignature {
        let z = hash.value
        guard z.bitLength <= maximumBits else {
            throw StarknetCryptoError(.messageNotSignable, "a message hash must be below 2^251")
        }
        let n = StarkCurve.scalars
        let d = key.scalar
        var seed: UInt256?
        while true {
            let k = RFC6979.generateK(hash: z, privateKey: d, seed: seed)
            seed = (seed ?? .zero) &+ .one
            let r = StarkCurve.generatorTable.multiply(k).affine.x.value
            guard !r.isZero, r.bitLength <= maximumBits else { continue }
            let sum = n.add(n.reduce(z), n.multiplyPlain(r, d))  // z + r·d mod N
            guard !sum.isZero else { continue }
            let w = n.multiplyPlain(k, n.inversePlain(sum))
            guard !w.isZero, w.bitLength <= maximumBits else { continue }
            let s = n.inversePlain(w)
            return StarkSignature(r: Felt(unchecked: r), s: Felt(unchecked: s))
        }
    }

    /// Whether `signature` signs `hash` for the Stark public key (an x coordinate; either y is accepted, as
    /// Starknet's reference `verify` does). A key off the curve or out-of-range values verify as false.
    public static func verify(publicKey: Felt, hash: Felt, signature: StarkSignature) -> Bool {
        guard let point = StarkCurve.point(x: publicKey.value) else { return false }
        return verify(point: point, hash: hash.value, r: signature.r.value, s: signature.s.value)
    }

    static func verify(point: AffinePoint, hash z: UInt256, r: UInt256, s: UInt256) -> Bool {
        let n = StarkCurve.scalars
        guard !r.isZero, r.bitLength <= maximumBits, !s.isZero, s < StarkCurve.order,
            z.bitLength <= maximumBits
        else { return false }
        let w = n.inversePlain(s)
        guard !w.isZero, w.bitLength <= maximumBits else { return false }
        let u1 = n.multiplyPlain(n.reduce(z), w)
        let u2 = n.multiplyPlain(r, w)
        let a = StarkCurve.generatorTable.multiply(u1)
        let b = point.multiplied(by: u2)
        let sums = JacobianPoint.normalize([a.adding(b), a.adding(JacobianPoint(x: b.x, y: -b.y, z: b.z))])
        return sums.contains { !$0.isInfinity && $0.x.value == r }
    }
}

/// RFC 6979 nonce generation as python-ecdsa's `generate_k` computes it for the STARK curve order.
enum RFC6979 {
    static func generateK(hash: UInt256, privateKey: UInt256, seed: UInt256?) -> UInt256 {
        var message = hash
        let bits = message.bitLength
        if bits >= 248, (1...4).contains(bits % 8) { message = message << 4 }
        let data = minimalBytes(message)
        let extraEntropy = seed.map(minimalBytes) ?? []
        let order = StarkCurve.order
        let qlen = order.bitLength  // 252
        var z2 = bits2int(data, qlen)
        if z2 >= order { z2 = z2 &- order }
        let material = privateKey.bigEndianBytes + z2.bigEndianBytes + extraEntropy

        var v = [UInt8](repeating: 0x01, count: 32)
        var k = [UInt8](repeating: 0x00, count: 32)
        k = hmac(k, v + [0x00] + material)
        v = hmac(k, v)
        k = hmac(k, v + [0x01] + material)
        v = hmac(k, v)
        while true {
            v = hmac(k, v)
            let candidate = bits2int(v, qlen)
            if !candidate.isZero, candidate < order { return candidate }
            k = hmac(k, v + [0x00])
            v = hmac(k, v)
        }
    }

    /// The integer of `data`, keeping its leftmost `qlen` bits.
    static func bits2int(_ data: [UInt8], _ qlen: Int) -> UInt256 {
        let value = (try? UInt256(bigEndianBytes: data.suffix(32))) ?? .zero
        let length = data.count * 8
        return length > qlen ? value >> (length - qlen) : value
    }

    /// Big-endian bytes without leading zeros (empty for zero), as Python's `to_bytes(ceil(bits / 8))`.
    static func minimalBytes(_ value: UInt256) -> [UInt8] {
        Array(value.bigEndianBytes.drop(while: { $0 == 0 }))
    }

    static func hmac(_ key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }
}
