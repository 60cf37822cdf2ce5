import Crypto

/// Starknet's Poseidon hash: the Hades permutation over three Stark field elements (8 full rounds, 83 partial
/// rounds, S-box x³, MDS matrix ((3, 1, 1), (1, −1, 1), (1, 1, −2))), rate 2, capacity 1.
///
/// Round constants are derived from their published rule rather than pasted: constant i of round r is
/// `int(sha256("Hades" + str(3·r + i))) mod P`, as StarkWare's parameter generator defines it.
public enum Poseidon {
    static let fullRounds = 8
    static let partialRounds = 83

    static let roundConstants: [FieldElement] = (0..<(3 * (fullRounds + partialRounds))).map { index in
        let digest = SHA256.hash(data: Array("Hades\(index)".utf8))
        let value = (try? UInt256(bigEndianBytes: Array(digest))) ?? .zero
        return FieldElement(reduced: FieldElement.arithmetic.reduce(value))
    }

    /// The Hades permutation, in place.
    static func permute(_ s0: inout FieldElement, _ s1: inout FieldElement, _ s2: inout FieldElement) {
        let constants = roundConstants
        let half = fullRounds / 2
        for round in 0..<(fullRounds + partialRounds) {
            s0 = s0 + constants[3 * round]
            s1 = s1 + constants[3 * round + 1]
            s2 = s2 + constants[3 * round + 2]
            if round < half || round >= half + partialRounds {
                s0 = s0.squared * s0
                s1 = s1.squared * s1
            }
            s2 = s2.squared * s2
            let sum = s0 + s1 + s2
            s0 = sum + s0.doubled
            s1 = sum - s1.doubled
            s2 = sum - (s2.doubled + s2)
        }
    }

    /// The Hades permutation over a three-element state.
    public static func permutation(_ state: (Felt, Felt, Felt)) -> (Felt, Felt, Felt) {
        var s0 = state.0.element
        var s1 = state.1.element
        var s2 = state.2.element
        permute(&s0, &s1, &s2)
        return (Felt(s0), Felt(s1), Felt(s2))
    }

    /// poseidon_hash_single(x): permute (x, 0, 1), return the first element.
    public static func hash(_ x: Felt) -> Felt {
        var s0 = x.element
        var s1 = FieldElement.zero
        var s2 = FieldElement.one
        permute(&s0, &s1, &s2)
        return Felt(s0)
    }

    /// poseidon_hash(x, y): permute (x, y, 2), return the first element.
    public static func hash(_ x: Felt, _ y: Felt) -> Felt {
        var s0 = x.element
        var s1 = y.element
        var s2 = FieldElement(2)
        permute(&s0, &s1, &s2)
        return Felt(s0)
    }

    /// poseidon_hash_many(values): absorb pairs into (0, 0, 0) after padding with 1 then zeros to an even count.
    public static func hash(many values: [Felt]) -> Felt {
        var padded = values.map(\.element)
        padded.append(.one)
        if padded.count % 2 == 1 { padded.append(.zero) }
        var s0 = FieldElement.zero
        var s1 = FieldElement.zero
        var s2 = FieldElement.zero
        var index = 0
        while index < padded.count {
            s0 = s0 + padded[index]
            s1 = s1 + padded[index + 1]
            permute(&s0, &s1, &s2)
            index += 2
        }
        return Felt(s0)
    }
}
