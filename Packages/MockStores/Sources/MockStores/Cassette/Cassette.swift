public import OpenCatCore

/// One recorded case, in the OpenCat cassette format 1 (`Fixtures/README.md`): a store, a scenario, the proof handed
/// to the adapter, the adapter's settings, the ordered HTTP interactions the store answers with, and the expected
/// normalised outcome.
///
/// Load cassettes with ``load(from:variables:displayName:)``, which substitutes `{{name}}` placeholders (secrets are
/// never committed) and validates the file, naming the file and the field of the first problem. Serve them with
/// `MockStoreServer`.
public struct Cassette: Sendable, Hashable, Codable {
    /// The format identifier this version reads and writes.
    public static let currentFormat = "opencat-cassette/1"

    /// The format identifier (``currentFormat``).
    public var format: String
    /// The store whose API the interactions speak (`apple`, `google`, `stripe`, `paypal`, `steam`, `opencat` for the
    /// OpenCat server API, or a third-party adapter's own identifier). Decides how `MockStoreServer` checks auth.
    public var store: Store
    /// The scenario id from `Fixtures/scenarios.json`.
    public var scenario: String
    /// What the case shows, in one or two sentences.
    public var description: String
    /// The proof handed to the adapter.
    public var input: Input
    /// Store-specific adapter settings (string values may contain placeholders).
    public var config: [String: JSONValue]
    /// The interactions, in order; each answers at most ``Interaction/times`` requests.
    public var interactions: [Interaction]
    /// The expected normalised outcome.
    public var expect: Expectation
    /// Where the cassette was loaded from (set by the loaders, not part of the JSON).
    public var source: String?

    /// Creates a cassette in code.
    public init(
        store: Store,
        scenario: String,
        description: String = "",
        input: Input,
        config: [String: JSONValue] = [:],
        interactions: [Interaction],
        expect: Expectation,
        source: String? = nil
    ) {
        self.format = Self.currentFormat
        self.store = store
        self.scenario = scenario
        self.description = description
        self.input = input
        self.config = config
        self.interactions = interactions
        self.expect = expect
        self.source = source
    }

    /// The proof described by ``input``, for ``store``.
    public var proof: PurchaseProof { input.proof(store: store) }

    /// A short name for messages: ``source`` if known, else `store/scenario`.
    public var name: String { source ?? "\(store.rawValue)/\(scenario)" }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case format, store, scenario, description, input, config, interactions, expect
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue) + ["$schema"]))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decode(String.self, forKey: .format)
        store = try container.decode(Store.self, forKey: .store)
        scenario = try container.decode(String.self, forKey: .scenario)
        description = try container.decodeIfPresent(String.self, forKey: .description) ?? ""
        input = try container.decode(Input.self, forKey: .input)
        config = try container.decodeIfPresent([String: JSONValue].self, forKey: .config) ?? [:]
        interactions = try container.decode([Interaction].self, forKey: .interactions)
        expect = try container.decode(Expectation.self, forKey: .expect)
        source = nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(store, forKey: .store)
        try container.encode(scenario, forKey: .scenario)
        try container.encode(description, forKey: .description)
        try container.encode(input, forKey: .input)
        try container.encode(config, forKey: .config)
        try container.encode(interactions, forKey: .interactions)
        try container.encode(expect, forKey: .expect)
    }
}
