public import OpenCatCore

/// Points at one interaction of a loaded cassette, with how often it has answered.
public struct InteractionReference: Sendable, Hashable, CustomStringConvertible {
    /// The cassette's ``Cassette/name``.
    public var cassette: String
    /// The cassette's store.
    public var store: Store
    /// The interaction's index in the cassette.
    public var index: Int
    /// The interaction's method.
    public var method: String
    /// The interaction's path.
    public var path: String
    /// How many requests it answers in all (``Cassette/Interaction/times``).
    public var times: Int
    /// How many answers it has given.
    public var used: Int

    /// Creates a reference.
    public init(cassette: String, store: Store, index: Int, method: String, path: String, times: Int, used: Int) {
        self.cassette = cassette
        self.store = store
        self.index = index
        self.method = method
        self.path = path
        self.times = times
        self.used = used
    }

    /// How many answers are left.
    public var remaining: Int { max(0, times - used) }

    /// `stripe/refunded.json interactions[2] (GET /v1/charges/ch_1, answered 0 of 1)`.
    public var description: String {
        "\(cassette) interactions[\(index)] (\(method) \(path), answered \(used) of \(times))"
    }
}
