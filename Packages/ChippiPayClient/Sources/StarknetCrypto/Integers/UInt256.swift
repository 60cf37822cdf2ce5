/// An exact unsigned 256-bit integer: token amounts, Starknet's u256, and the raw value behind a field element.
///
/// Four 64-bit limbs, least significant first. Arithmetic never traps: the checked forms return `nil` or report
/// overflow, and the wrapping operators (`&+`, `&-`) wrap modulo 2²⁵⁶, so a hostile amount can only produce an error.
public struct UInt256: Sendable, Hashable {
    /// The least significant limb.
    public var w0: UInt64
    /// The second limb.
    public var w1: UInt64
    /// The third limb.
    public var w2: UInt64
    /// The most significant limb.
    public var w3: UInt64

    /// A value from its four limbs, least significant first.
    @inlinable
    public init(w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64) {
        self.w0 = w0
        self.w1 = w1
        self.w2 = w2
        self.w3 = w3
    }

    /// A value that fits in 64 bits.
    @inlinable
    public init(_ value: UInt64) {
        self.init(w0: value, w1: 0, w2: 0, w3: 0)
    }

    /// A value from its high and low 128-bit halves, as Starknet's u256 `(low, high)` pair carries it.
    public init(low: UInt128, high: UInt128) {
        self.init(
            w0: UInt64(truncatingIfNeeded: low),
            w1: UInt64(truncatingIfNeeded: low >> 64),
            w2: UInt64(truncatingIfNeeded: high),
            w3: UInt64(truncatingIfNeeded: high >> 64)
        )
    }

    /// Zero.
    public static let zero = UInt256(0)
    /// One.
    public static let one = UInt256(1)
    /// 2²⁵⁶ − 1.
    public static let max = UInt256(w0: .max, w1: .max, w2: .max, w3: .max)

    /// The low 128 bits (Starknet's u256 `low` felt).
    public var low: UInt128 { UInt128(w1) << 64 | UInt128(w0) }
    /// The high 128 bits (Starknet's u256 `high` felt).
    public var high: UInt128 { UInt128(w3) << 64 | UInt128(w2) }

    /// Whether the value is zero.
    @inlinable
    public var isZero: Bool { (w0 | w1 | w2 | w3) == 0 }

    /// The number of significant bits (0 for zero).
    public var bitLength: Int {
        if w3 != 0 { return 256 - w3.leadingZeroBitCount }
        if w2 != 0 { return 192 - w2.leadingZeroBitCount }
        if w1 != 0 { return 128 - w1.leadingZeroBitCount }
        return 64 - w0.leadingZeroBitCount
    }

    /// Bit `index` (0 is the least significant); bits past 255 are zero.
    @inlinable
    public func bit(_ index: Int) -> Bool {
        guard index >= 0, index < 256 else { return false }
        return (limb(index >> 6) >> UInt64(index & 63)) & 1 == 1
    }

    /// Limb `index` (0...3).
    @inlinable
    func limb(_ index: Int) -> UInt64 {
        switch index {
        case 0: w0
        case 1: w1
        case 2: w2
        default: w3
        }
    }

    /// The value shifted right by `count` bits.
    public static func >> (value: UInt256, count: Int) -> UInt256 {
        guard count > 0 else { return value }
        guard count < 256 else { return .zero }
        let limbs = count / 64
        let bits = UInt64(count % 64)
        var out = [UInt64](repeating: 0, count: 4)
        for index in 0..<(4 - limbs) {
            let lower = value.limb(index + limbs)
            let upper = index + limbs + 1 < 4 ? value.limb(index + limbs + 1) : 0
            out[index] = bits == 0 ? lower : (lower >> bits) | (upper << (64 - bits))
        }
        return UInt256(w0: out[0], w1: out[1], w2: out[2], w3: out[3])
    }

    /// The value shifted left by `count` bits; bits shifted past 255 are lost.
    public static func << (value: UInt256, count: Int) -> UInt256 {
        guard count > 0 else { return value }
        guard count < 256 else { return .zero }
        let limbs = count / 64
        let bits = UInt64(count % 64)
        var out = [UInt64](repeating: 0, count: 4)
        for index in limbs..<4 {
            let upper = value.limb(index - limbs)
            let lower = index - limbs - 1 >= 0 ? value.limb(index - limbs - 1) : 0
            out[index] = bits == 0 ? upper : (upper << bits) | (lower >> (64 - bits))
        }
        return UInt256(w0: out[0], w1: out[1], w2: out[2], w3: out[3])
    }

    /// Bitwise and.
    @inlinable
    public static func & (lhs: UInt256, rhs: UInt256) -> UInt256 {
        UInt256(w0: lhs.w0 & rhs.w0, w1: lhs.w1 & rhs.w1, w2: lhs.w2 & rhs.w2, w3: lhs.w3 & rhs.w3)
    }

    /// Bitwise or.
    @inlinable
    public static func | (lhs: UInt256, rhs: UInt256) -> UInt256 {
        UInt256(w0: lhs.w0 | rhs.w0, w1: lhs.w1 | rhs.w1, w2: lhs.w2 | rhs.w2, w3: lhs.w3 | rhs.w3)
    }
}

extension UInt256: Comparable {
    /// Numeric order.
    @inlinable
    public static func < (lhs: UInt256, rhs: UInt256) -> Bool {
        if lhs.w3 != rhs.w3 { return lhs.w3 < rhs.w3 }
        if lhs.w2 != rhs.w2 { return lhs.w2 < rhs.w2 }
        if lhs.w1 != rhs.w1 { return lhs.w1 < rhs.w1 }
        return lhs.w0 < rhs.w0
    }
}

extension UInt256: ExpressibleByIntegerLiteral {
    /// A literal that fits in 64 bits.
    public init(integerLiteral value: UInt64) {
        self.init(value)
    }
}

extension UInt256 {
    /// The sum and whether it overflowed 256 bits.
    @inlinable
    public func addingReportingOverflow(_ other: UInt256) -> (partialValue: UInt256, overflow: Bool) {
        let (s0, c0) = w0.addingReportingOverflow(other.w0)
        let (s1, c1) = UInt256.addCarry(w1, other.w1, c0)
        let (s2, c2) = UInt256.addCarry(w2, other.w2, c1)
        let (s3, c3) = UInt256.addCarry(w3, other.w3, c2)
        return (UInt256(w0: s0, w1: s1, w2: s2, w3: s3), c3)
    }

    /// The difference and whether it borrowed (went below zero).
    @inlinable
    public func subtractingReportingOverflow(_ other: UInt256) -> (partialValue: UInt256, overflow: Bool) {
        let (d0, b0) = w0.subtractingReportingOverflow(other.w0)
        let (d1, b1) = UInt256.subBorrow(w1, other.w1, b0)
        let (d2, b2) = UInt256.subBorrow(w2, other.w2, b1)
        let (d3, b3) = UInt256.subBorrow(w3, other.w3, b2)
        return (UInt256(w0: d0, w1: d1, w2: d2, w3: d3), b3)
    }

    /// The full 512-bit product as (high, low) halves.
    public func multipliedFullWidth(by other: UInt256) -> (high: UInt256, low: UInt256) {
        var result = [UInt64](repeating: 0, count: 8)
        for i in 0..<4 {
            var carry: UInt64 = 0
            let a = limb(i)
            for j in 0..<4 {
                let (hi, lo) = UInt256.multiplyAdd(result[i + j], a, other.limb(j), carry)
                result[i + j] = lo
                carry = hi
            }
            result[i + 4] = carry
        }
        return (
            UInt256(w0: result[4], w1: result[5], w2: result[6], w3: result[7]),
            UInt256(w0: result[0], w1: result[1], w2: result[2], w3: result[3])
        )
    }

    /// The product and whether it overflowed 256 bits.
    public func multipliedReportingOverflow(by other: UInt256) -> (partialValue: UInt256, overflow: Bool) {
        let (high, low) = multipliedFullWidth(by: other)
        return (low, !high.isZero)
    }

    /// The sum, or `nil` past 2²⁵⁶ − 1.
    public func adding(_ other: UInt256) -> UInt256? {
        let (value, overflow) = addingReportingOverflow(other)
        return overflow ? nil : value
    }

    /// The difference, or `nil` below zero.
    public func subtracting(_ other: UInt256) -> UInt256? {
        let (value, overflow) = subtractingReportingOverflow(other)
        return overflow ? nil : value
    }

    /// The product, or `nil` past 2²⁵⁶ − 1.
    public func multiplied(by other: UInt256) -> UInt256? {
        let (value, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? nil : value
    }

    /// Wrapping addition modulo 2²⁵⁶.
    @inlinable
    public static func &+ (lhs: UInt256, rhs: UInt256) -> UInt256 {
        lhs.addingReportingOverflow(rhs).partialValue
    }

    /// Wrapping subtraction modulo 2²⁵⁶.
    @inlinable
    public static func &- (lhs: UInt256, rhs: UInt256) -> UInt256 {
        lhs.subtractingReportingOverflow(rhs).partialValue
    }

    /// Quotient and remainder by a non-zero 64-bit divisor (`nil` for zero).
    public func quotientAndRemainder(dividingBy divisor: UInt64) -> (quotient: UInt256, remainder: UInt64)? {
        guard divisor != 0 else { return nil }
        var remainder: UInt64 = 0
        var limbs: [UInt64] = [w3, w2, w1, w0]
        for index in 0..<4 {
            let (q, r) = divisor.dividingFullWidth((high: remainder, low: limbs[index]))
            limbs[index] = q
            remainder = r
        }
        return (UInt256(w0: limbs[3], w1: limbs[2], w2: limbs[1], w3: limbs[0]), remainder)
    }

    /// Quotient and remainder by a non-zero divisor (`nil` for zero), by shift-and-subtract.
    public func quotientAndRemainder(dividingBy divisor: UInt256) -> (quotient: UInt256, remainder: UInt256)? {
        guard !divisor.isZero else { return nil }
        if self < divisor { return (.zero, self) }
        var quotient = UInt256.zero
        var remainder = UInt256.zero
        for index in stride(from: bitLength - 1, through: 0, by: -1) {
            remainder = remainder << 1
            if bit(index) { remainder.w0 |= 1 }
            if remainder >= divisor {
                remainder = remainder &- divisor
                quotient = quotient | (UInt256.one << index)
            }
        }
        return (quotient, remainder)
    }

    /// `t + a·b + c` as a 128-bit (high, low) pair; cannot overflow.
    @inline(__always)
    @usableFromInline
    static func multiplyAdd(_ t: UInt64, _ a: UInt64, _ b: UInt64, _ c: UInt64) -> (UInt64, UInt64) {
        let (hi, lo) = a.multipliedFullWidth(by: b)
        let (lo1, o1) = lo.addingReportingOverflow(t)
        let (lo2, o2) = lo1.addingReportingOverflow(c)
        return (hi &+ (o1 ? 1 : 0) &+ (o2 ? 1 : 0), lo2)
    }

    @inline(__always)
    @usableFromInline
    static func addCarry(_ a: UInt64, _ b: UInt64, _ carry: Bool) -> (UInt64, Bool) {
        let (s, o1) = a.addingReportingOverflow(b)
        let (t, o2) = s.addingReportingOverflow(carry ? 1 : 0)
        return (t, o1 || o2)
    }

    @inline(__always)
    @usableFromInline
    static func subBorrow(_ a: UInt64, _ b: UInt64, _ borrow: Bool) -> (UInt64, Bool) {
        let (d, o1) = a.subtractingReportingOverflow(b)
        let (e, o2) = d.subtractingReportingOverflow(borrow ? 1 : 0)
        return (e, o1 || o2)
    }
}
