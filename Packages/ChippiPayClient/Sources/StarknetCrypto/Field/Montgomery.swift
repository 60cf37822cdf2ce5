/// Montgomery arithmetic modulo an odd 256-bit modulus below 2²⁵⁵, with R = 2²⁵⁶.
///
/// The generic form serves the curve order (a few operations per signature); the Stark field prime has its own
/// specialised multiplication in ``FieldElement``.
struct MontgomeryModulus: Sendable {
    let modulus: UInt256
    /// −modulus⁻¹ mod 2⁶⁴.
    let n0: UInt64
    /// R² mod modulus, to enter Montgomery form.
    let rSquared: UInt256
    /// R mod modulus: one in Montgomery form.
    let one: UInt256

    init(_ modulus: UInt256) {
        self.modulus = modulus
        var inverse: UInt64 = 1
        for _ in 0..<7 { inverse = inverse &* (2 &- modulus.w0 &* inverse) }
        n0 = 0 &- inverse
        one = Self.powerOfTwo(256, modulo: modulus)
        rSquared = Self.powerOfTwo(512, modulo: modulus)
    }

    /// 2^exponent mod `modulus`, by doubling (the modulus is below 2²⁵⁵, so a doubled residue fits).
    static func powerOfTwo(_ exponent: Int, modulo modulus: UInt256) -> UInt256 {
        var value = UInt256.one
        for _ in 0..<exponent {
            value = value << 1
            if value >= modulus { value = value &- modulus }
        }
        return value
    }

    /// a·b·R⁻¹ mod modulus (CIOS), for a, b below the modulus.
    func multiply(_ a: UInt256, _ b: UInt256) -> UInt256 {
        let m = modulus
        var t0: UInt64 = 0
        var t1: UInt64 = 0
        var t2: UInt64 = 0
        var t3: UInt64 = 0
        var t4: UInt64 = 0
        for i in 0..<4 {
            let bi = b.limb(i)
            var c: UInt64
            (c, t0) = UInt256.multiplyAdd(t0, a.w0, bi, 0)
            (c, t1) = UInt256.multiplyAdd(t1, a.w1, bi, c)
            (c, t2) = UInt256.multiplyAdd(t2, a.w2, bi, c)
            (c, t3) = UInt256.multiplyAdd(t3, a.w3, bi, c)
            let (s4, o4) = t4.addingReportingOverflow(c)
            let t5: UInt64 = o4 ? 1 : 0
            t4 = s4
            let q = t0 &* n0
            (c, _) = UInt256.multiplyAdd(t0, q, m.w0, 0)
            (c, t0) = UInt256.multiplyAdd(t1, q, m.w1, c)
            (c, t1) = UInt256.multiplyAdd(t2, q, m.w2, c)
            (c, t2) = UInt256.multiplyAdd(t3, q, m.w3, c)
            let (s3, o3) = t4.addingReportingOverflow(c)
            t3 = s3
            t4 = t5 &+ (o3 ? 1 : 0)
        }
        var result = UInt256(w0: t0, w1: t1, w2: t2, w3: t3)
        if t4 != 0 || result >= m { result = result &- m }
        return result
    }

    func toMontgomery(_ value: UInt256) -> UInt256 { multiply(reduce(value), rSquared) }

    func fromMontgomery(_ value: UInt256) -> UInt256 { multiply(value, .one) }

    /// `value` mod modulus for any 256-bit value.
    func reduce(_ value: UInt256) -> UInt256 {
        value < modulus ? value : (value.quotientAndRemainder(dividingBy: modulus)?.remainder ?? .zero)
    }

    func add(_ a: UInt256, _ b: UInt256) -> UInt256 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow || sum >= modulus ? sum &- modulus : sum
    }

    func subtract(_ a: UInt256, _ b: UInt256) -> UInt256 {
        let (difference, borrow) = a.subtractingReportingOverflow(b)
        return borrow ? difference &+ modulus : difference
    }

    /// base^exponent in Montgomery form, square-and-multiply.
    func power(_ base: UInt256, _ exponent: UInt256) -> UInt256 {
        var result = one
        for index in stride(from: exponent.bitLength - 1, through: 0, by: -1) {
            result = multiply(result, result)
            if exponent.bit(index) { result = multiply(result, base) }
        }
        return result
    }

    /// The inverse in Montgomery form by Fermat (the modulus is prime); zero maps to zero.
    func inverse(_ value: UInt256) -> UInt256 {
        power(value, modulus &- UInt256(2))
    }

    /// (a · b) mod modulus on plain values.
    func multiplyPlain(_ a: UInt256, _ b: UInt256) -> UInt256 {
        fromMontgomery(multiply(toMontgomery(a), toMontgomery(b)))
    }

    /// a⁻¹ mod modulus on plain values (zero maps to zero).
    func inversePlain(_ a: UInt256) -> UInt256 {
        fromMontgomery(inverse(toMontgomery(a)))
    }
}
