/// A random number generator that repeats itself from a seed (SplitMix64): property tests draw their cases from one
/// and print the seed, so a failure reruns exactly with `OPENCAT_TEST_SEED=<seed>`.
///
/// ```swift
/// var random = SeededGenerator.fromEnvironment()
/// print("seed \(random.seed)")
/// let amount = Int.random(in: 1...10, using: &random)
/// ```
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The seed this generator started from.
    public let seed: UInt64
    private var state: UInt64

    /// A generator that starts from `seed`.
    public init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    /// A generator seeded by `OPENCAT_TEST_SEED` when it is set (a decimal number), else by a random seed.
    public static func fromEnvironment(_ environment: [String: String]) -> SeededGenerator {
        if let text = environment["OPENCAT_TEST_SEED"], let seed = UInt64(text) { return SeededGenerator(seed: seed) }
        return SeededGenerator(seed: UInt64.random(in: .min ... .max))
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
