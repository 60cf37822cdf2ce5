/// An element of the Stark field in Montgomery form: the working type of every curve and hash computation.
///
/// P = 2²⁵¹ + 17·2¹⁹² + 1 has limbs (1, 0, 0, 0x0800000000000011), so −P⁻¹ mod 2⁶⁴ is 2⁶⁴ − 1 and each
/// reduction step costs one 64×64 multiplication; that specialisation is what makes hashing and signing fast.
struct FieldElement: Sendable, Hashable {
    var raw: UInt256

    @inline(__always)
    init(montgomery raw: UInt256) { self.raw = raw }

    static let p3: UInt64 = 0x0800_0000_0000_0011
    @inline(__always)
    static var modulus: UInt256 { UInt256(w0: 1, w1: 0, w2: 0, w3: p3) }
    static let arithmetic = MontgomeryModulus(modulus)
    static let zero = FieldElement(montgomery: .zero)
    static let one = FieldElement(montgomery: arithmetic.one)

    /// An element from a value already below P.
    init(reduced value: UInt256) {
        self = FieldElement(montgomery: Self.arithmetic.rSquared) * FieldElement(montgomery: value)
    }

    /// An element from a small integer.
    init(_ value: UInt64) { self.init(reduced: UInt256(value)) }

    /// The canonical value below P.
    var value: UInt256 { (self * FieldElement(montgomery: .one)).raw }

    var isZero: Bool { raw.isZero }

    @inline(__always)
    static func + (a: FieldElement, b: FieldElement) -> FieldElement {
        let sum = a.raw &+ b.raw
        return FieldElement(montgomery: sum >= modulus ? sum &- modulus : sum)
    }

    @inline(__always)
    static func - (a: FieldElement, b: FieldElement) -> FieldElement {
        let (difference, borrow) = a.raw.subtractingReportingOverflow(b.raw)
        return FieldElement(montgomery: borrow ? difference &+ modulus : difference)
    }

    @inline(__always)
    static prefix func - (a: FieldElement) -> FieldElement { zero - a }

    @inline(__always)
    var doubled: FieldElement { self + self }

    @inline(__always)
    var squared: FieldElement { self * self }

    /// Montgomery multiplication specialised to P (CIOS, one multiply per reduction step).
    @inline(__always)
    static func * (a: FieldElement, b: FieldElement) -> FieldElement {
        let x = a.raw
        let y = b.raw
        var t0: UInt64 = 0
        var t1: UInt64 = 0
        var t2: UInt64 = 0
        var t3: UInt64 = 0
        var t4: UInt64 = 0
        @inline(__always)
        func round(_ bi: UInt64) {
            var c: UInt64
            (c, t0) = UInt256.multiplyAdd(t0, x.w0, bi, 0)
            (c, t1) = UInt256.multiplyAdd(t1, x.w1, bi, c)
            (c, t2) = UInt256.multiplyAdd(t2, x.w2, bi, c)
            (c, t3) = UInt256.multiplyAdd(t3, x.w3, bi, c)
            t4 = t4 &+ c  // t < 2P·2⁶⁴ keeps this below 2⁶⁴
            let q = 0 &- t0
            let carry: UInt64 = t0 == 0 ? 0 : 1  // t0 + q·1 is 0 or 2⁶⁴
            var o: Bool
            (t0, o) = t1.addingReportingOverflow(carry)
            (t1, o) = t2.addingReportingOverflow(o ? 1 : 0)
            (c, t2) = UInt256.multiplyAdd(t3, q, p3, o ? 1 : 0)
            (t3, o) = t4.addingReportingOverflow(c)
            t4 = o ? 1 : 0
        }
        round(y.w0)
        round(y.w1)
        round(y.w2)
        round(y.w3)
        var result = UInt256(w0: t0, w1: t1, w2: t2, w3: t3)
        if t4 != 0 || result >= modulus { result = result &- modulus }
        return FieldElement(montgomery: result)
    }

    /// self^exponent.
    func power(_ exponent: UInt256) -> FieldElement {
        var result = FieldElement.one
        for index in stride(from: exponent.bitLength - 1, through: 0, by: -1) {
            result = result.squared
            if exponent.bit(index) { result = result * self }
        }
        return result
    }

    /// The multiplicative inverse (zero for zero), by Fermat's little theorem.
    var inverse: FieldElement { power(Self.modulus &- UInt256(2)) }

    /// Whether the element is a square (zero counts as a square).
    var isSquare: Bool {
        isZero || power((Self.modulus &- .one) >> 1) == .one
    }

    /// A square root, or `nil` when there is none (Tonelli–Shanks; P − 1 = 2¹⁹²·(2⁵⁹ + 17)).
    var squareRoot: FieldElement? {
        if isZero { return .zero }
        guard isSquare else { return nil }
        let q = (Self.modulus &- .one) >> 192
        var m = 192
        var c = FieldElement(3).power(q)  // 3 generates the multiplicative group
        var t = power(q)
        var r = power((q &+ .one) >> 1)
        while t != .one {
            var i = 0
            var probe = t
            while probe != .one {
                probe = probe.squared
                i += 1
                if i == m { return nil }
            }
            var b = c
            for _ in 0..<(m - i - 1) { b = b.squared }
            m = i
            c = b.squared
            t = t * c
            r = r * b
        }
        return r
    }

    /// Inverts every element with one field inversion (Montgomery's trick); zeros stay zero.
    static func batchInverse(_ elements: [FieldElement]) -> [FieldElement] {
        var prefix = [FieldElement](repeating: .one, count: elements.count)
        var accumulator = FieldElement.one
        for (index, element) in elements.enumerated() {
            prefix[index] = accumulator
            if !element.isZero { accumulator = accumulator * element }
        }
        var inverse = accumulator.inverse
        var result = [FieldElement](repeating: .zero, count: elements.count)
        for index in stride(from: elements.count - 1, through: 0, by: -1) where !elements[index].isZero {
            result[index] = inverse * prefix[index]
            inverse = inverse * elements[index]
        }
        return result
    }
}
