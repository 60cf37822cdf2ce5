/// The STARK curve's parameters: y² = x³ + α·x + β over the Stark field, with α = 1.
public enum StarkCurve {
    /// The field prime P = 2²⁵¹ + 17·2¹⁹² + 1.
    public static let fieldPrime = FieldElement.modulus
    /// α = 1.
    public static let alpha = UInt256.one
    /// β.
    public static let beta = hex("0x6f21413efbe40de150e596d72f7a8c5609ad26c15c915c1f4cdfcb99cee9e89")
    /// The order N of the generator (a prime).
    public static let order = hex("0x800000000000010ffffffffffffffffb781126dcae7b2321e66a241adc64d2f")
    /// The generator's x coordinate.
    public static let generatorX = hex("0x1ef15c18599971b7beced415a40f0c7deacfd9b0d1819e03d723d8bc943cfca")
    /// The generator's y coordinate.
    public static let generatorY = hex("0x5668060aa49730b7be4801df46ec62de53ecd11abe43a32873000c36e8dc1f")

    static let betaElement = FieldElement(reduced: beta)
    static let generator = AffinePoint(x: FieldElement(reduced: generatorX), y: FieldElement(reduced: generatorY))
    static let generatorTable = FixedBaseTable(point: generator, bits: 252)
    static let scalars = MontgomeryModulus(order)

    /// x³ + x + β.
    static func rightHandSide(_ x: FieldElement) -> FieldElement {
        x.squared * x + x + betaElement
    }

    /// A point with this x coordinate (either of the two), or `nil` when x is not on the curve.
    static func point(x: UInt256) -> AffinePoint? {
        guard x < fieldPrime else { return nil }
        let xElement = FieldElement(reduced: x)
        guard let y = rightHandSide(xElement).squareRoot else { return nil }
        return AffinePoint(x: xElement, y: y)
    }

    /// A constant known at compile time to be valid hexadecimal below 2²⁵⁶.
    static func hex(_ text: String) -> UInt256 {
        (try? UInt256(hex: text)) ?? .zero
    }
}
