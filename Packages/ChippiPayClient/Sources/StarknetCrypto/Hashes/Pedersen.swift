/// Starknet's Pedersen hash: H(a, b) = [P₀ + a_low·P₁ + a_high·P₂ + b_low·P₃ + b_high·P₄]ₓ, where `low` is an
/// element's 248 least significant bits and `high` its remaining 4 bits.
public enum Pedersen {
    static let shiftPoint = point(
        "0x49ee3eba8c1600700ee1b87eb599f16716b0b1022947733551fde4050ca6804",
        "0x3ca0cfe4b3bc6ddf346d49d06ea0ed34e621062c0e056c1d0405d266e10268a"
    )
    static let p1 = point(
        "0x234287dcbaffe7f969c748655fca9e58fa8120b6d56eb0c1080d17957ebe47b",
        "0x3b056f100f96fb21e889527d41f4e39940135dd7a6c94cc6ed0268ee89e5615"
    )
    static let p2 = point(
        "0x4fa56f376c83db33f9dab2656558f3399099ec1de5e3018b7a6932dba8aa378",
        "0x3fa0984c931c9e38113e0c0e47e4401562761f92a7a23b45168f4e80ff5b54d"
    )
    static let p3 = point(
        "0x4ba4cc166be8dec764910f75b45f74b40c690c74709e90f3aa372f0bd2d6997",
        "0x40301cf5c1751f4b971e46c4ede85fcac5c59a5ce5ae7c48151f27b24b219c"
    )
    static let p4 = point(
        "0x54302dcb0e6cc1c6e44cca8f61a63bb2ca65048d53fb325d36ff12c49a58202",
        "0x1b77b3e37d13504b348046268d8ae25ce98ad783c25561a879dcc77e99c2426"
    )

    /// The four tables, built once on first use.
    static let tables = (
        aLow: FixedBaseTable(point: p1, bits: 248), aHigh: FixedBaseTable(point: p2, bits: 4),
        bLow: FixedBaseTable(point: p3, bits: 248), bHigh: FixedBaseTable(point: p4, bits: 4)
    )

    static let lowMask = (UInt256.one << 248) &- .one

    /// H(a, b).
    public static func hash(_ a: Felt, _ b: Felt) -> Felt {
        let tables = Self.tables
        var accumulator = JacobianPoint(shiftPoint)
        tables.aLow.accumulate(a.value & lowMask, into: &accumulator)
        tables.aHigh.accumulate(a.value >> 248, into: &accumulator)
        tables.bLow.accumulate(b.value & lowMask, into: &accumulator)
        tables.bHigh.accumulate(b.value >> 248, into: &accumulator)
        return Felt(accumulator.affine.x)
    }

    /// The chained hash Starknet uses for arrays: h(h(h(h(0, e₁), e₂), …, eₙ), n).
    public static func hash(array elements: [Felt]) -> Felt {
        var current = Felt.zero
        for element in elements { current = hash(current, element) }
        return hash(current, Felt(UInt64(elements.count)))
    }

    private static func point(_ x: String, _ y: String) -> AffinePoint {
        AffinePoint(x: FieldElement(reduced: StarkCurve.hex(x)), y: FieldElement(reduced: StarkCurve.hex(y)))
    }
}
