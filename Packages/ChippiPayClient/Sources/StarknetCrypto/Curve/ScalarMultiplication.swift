/// Multiples of a fixed point in 4-bit windows, `entries[15·w + d − 1] = d·16ʷ·point`, so a scalar of `bits` bits
/// costs one mixed addition per non-zero window and no doubling.
struct FixedBaseTable: Sendable {
    let windowCount: Int
    let entries: [AffinePoint]

    init(point: AffinePoint, bits: Int) {
        windowCount = (bits + 3) / 4
        var jacobian: [JacobianPoint] = []
        jacobian.reserveCapacity(windowCount * 15)
        var base = JacobianPoint(point)
        for _ in 0..<windowCount {
            let baseAffine = base.affine
            var multiple = base
            jacobian.append(multiple)
            for _ in 2...15 {
                multiple = multiple.adding(baseAffine)
                jacobian.append(multiple)
            }
            base = multiple.adding(baseAffine)  // 16·base
        }
        entries = JacobianPoint.normalize(jacobian)
    }

    /// scalar·point added to `accumulator`, for a scalar below 2^(4·windowCount).
    func accumulate(_ scalar: UInt256, into accumulator: inout JacobianPoint) {
        for window in 0..<windowCount {
            let digit = Int((scalar.limb(window >> 4) >> UInt64((window & 15) * 4)) & 0xF)
            if digit != 0 {
                accumulator = accumulator.adding(entries[window * 15 + digit - 1])
            }
        }
    }

    func multiply(_ scalar: UInt256) -> JacobianPoint {
        var accumulator = JacobianPoint.infinity
        accumulate(scalar, into: &accumulator)
        return accumulator
    }
}

extension AffinePoint {
    /// scalar·self with a 4-bit fixed window over a precomputed 1…15 multiple table.
    func multiplied(by scalar: UInt256) -> JacobianPoint {
        if isInfinity || scalar.isZero { return .infinity }
        var multiples: [JacobianPoint] = [JacobianPoint(self)]
        for _ in 2...15 { multiples.append(multiples[multiples.count - 1].adding(self)) }
        let table = JacobianPoint.normalize(multiples)
        var accumulator = JacobianPoint.infinity
        let windows = (scalar.bitLength + 3) / 4
        for window in stride(from: windows - 1, through: 0, by: -1) {
            accumulator = accumulator.doubled.doubled.doubled.doubled
            let digit = Int((scalar.limb(window >> 4) >> UInt64((window & 15) * 4)) & 0xF)
            if digit != 0 { accumulator = accumulator.adding(table[digit - 1]) }
        }
        return accumulator
    }
}
