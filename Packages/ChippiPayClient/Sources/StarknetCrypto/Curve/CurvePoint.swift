/// A point of the STARK curve y² = x³ + α·x + β (α = 1) in affine coordinates; `nil` coordinates are infinity.
struct AffinePoint: Sendable, Hashable {
    var x: FieldElement
    var y: FieldElement
    var isInfinity: Bool

    static let infinity = AffinePoint(x: .zero, y: .zero, isInfinity: true)

    init(x: FieldElement, y: FieldElement, isInfinity: Bool = false) {
        self.x = x
        self.y = y
        self.isInfinity = isInfinity
    }

    /// A point from canonical coordinates, checked to lie on the curve.
    init?(x: UInt256, y: UInt256) {
        guard x < FieldElement.modulus, y < FieldElement.modulus else { return nil }
        self.init(x: FieldElement(reduced: x), y: FieldElement(reduced: y))
        guard isOnCurve else { return nil }
    }

    var isOnCurve: Bool {
        isInfinity || y.squared == StarkCurve.rightHandSide(x)
    }

    var negated: AffinePoint {
        isInfinity ? self : AffinePoint(x: x, y: -y)
    }
}

/// A point in Jacobian coordinates (X/Z², Y/Z³); Z = 0 is infinity.
struct JacobianPoint: Sendable {
    var x: FieldElement
    var y: FieldElement
    var z: FieldElement

    static let infinity = JacobianPoint(x: .one, y: .one, z: .zero)

    init(x: FieldElement, y: FieldElement, z: FieldElement) {
        self.x = x
        self.y = y
        self.z = z
    }

    init(_ point: AffinePoint) {
        self = point.isInfinity ? .infinity : JacobianPoint(x: point.x, y: point.y, z: .one)
    }

    var isInfinity: Bool { z.isZero }

    /// The affine point (one field inversion).
    var affine: AffinePoint {
        if isInfinity { return .infinity }
        let zInverse = z.inverse
        let zInverse2 = zInverse.squared
        return AffinePoint(x: x * zInverse2, y: y * zInverse2 * zInverse)
    }

    /// 2·self ("dbl-2007-bl", with α = 1).
    var doubled: JacobianPoint {
        if isInfinity || y.isZero { return .infinity }
        let xx = x.squared
        let yy = y.squared
        let yyyy = yy.squared
        let zz = z.squared
        let s = ((x + yy).squared - xx - yyyy).doubled
        let m = xx.doubled + xx + zz.squared
        let x3 = m.squared - s.doubled
        let eight = yyyy.doubled.doubled.doubled
        let y3 = m * (s - x3) - eight
        let z3 = (y + z).squared - yy - zz
        return JacobianPoint(x: x3, y: y3, z: z3)
    }

    /// self + q for an affine q ("madd-2007-bl"), handling doubling and opposite points.
    func adding(_ q: AffinePoint) -> JacobianPoint {
        if q.isInfinity { return self }
        if isInfinity { return JacobianPoint(q) }
        let z1z1 = z.squared
        let u2 = q.x * z1z1
        let s2 = q.y * z * z1z1
        let h = u2 - x
        let r = (s2 - y).doubled
        if h.isZero {
            return r.isZero ? doubled : .infinity
        }
        let hh = h.squared
        let i = hh.doubled.doubled
        let j = h * i
        let v = x * i
        let x3 = r.squared - j - v.doubled
        let y3 = r * (v - x3) - (y * j).doubled
        let z3 = (z + h).squared - z1z1 - hh
        return JacobianPoint(x: x3, y: y3, z: z3)
    }

    /// self + q for a Jacobian q ("add-2007-bl").
    func adding(_ q: JacobianPoint) -> JacobianPoint {
        if q.isInfinity { return self }
        if isInfinity { return q }
        let z1z1 = z.squared
        let z2z2 = q.z.squared
        let u1 = x * z2z2
        let u2 = q.x * z1z1
        let s1 = y * q.z * z2z2
        let s2 = q.y * z * z1z1
        let h = u2 - u1
        let r = (s2 - s1).doubled
        if h.isZero {
            return r.isZero ? doubled : .infinity
        }
        let i = h.doubled.squared
        let j = h * i
        let v = u1 * i
        let x3 = r.squared - j - v.doubled
        let y3 = r * (v - x3) - (s1 * j).doubled
        let z3 = ((z + q.z).squared - z1z1 - z2z2) * h
        return JacobianPoint(x: x3, y: y3, z: z3)
    }

    /// Converts many points to affine with one inversion.
    static func normalize(_ points: [JacobianPoint]) -> [AffinePoint] {
        let inverses = FieldElement.batchInverse(points.map(\.z))
        return zip(points, inverses).map { point, zInverse in
            if point.isInfinity { return .infinity }
            let zInverse2 = zInverse.squared
            return AffinePoint(x: point.x * zInverse2, y: point.y * zInverse2 * zInverse)
        }
    }
}
