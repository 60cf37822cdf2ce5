import Crypto
import Foundation
public import KeyServerClient
import MockStores
public import OpenCatConformance
public import OpenCatCore
public import StarknetCrypto
import StoreAdapters

/// The keys a run of the workspace's own sections signs and pays with, made fresh for each run and never committed:
/// the key server's license issuer (kid `conformance`) and the Stark key of the account that pays from its vault.
public struct SectionCredentials: Sendable {
    /// Signs the licenses the key-server and reference-server cassettes hold; the clients trust its public key.
    public var licenseIssuer: LicenseIssuer
    /// The Stark key of the conformance account (signatures are left to the account contract, so cassettes never
    /// hold a key).
    public var starknetAccountKey: StarkPrivateKey

    /// A fresh set.
    public init() {
        licenseIssuer = LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "conformance")
        starknetAccountKey = StarkPrivateKey.generate()
    }

    /// The run's credentials with the license signer added: a cassette's `licenses` are signed by the run's issuer
    /// for its own kid, and by a throwaway key for any other kid (a foreign license).
    public func applied(to credentials: ConformanceCredentials) -> ConformanceCredentials {
        var copy = credentials
        let issuer = licenseIssuer
        copy.signers["licenses"] = .init(placeholderPrefix: "keyserver.license") { payload in
            let decoded = try JSONDecoder.licensePayload.decode(LicensePayload.self, from: payload.serialized())
            let signer =
                decoded.kid == issuer.kid
                ? issuer : LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: decoded.kid)
            return try signer.sign(decoded).rawValue
        }
        return copy
    }
}

/// The sections a workspace run adds after the stores' matrix, each a subfolder of `Fixtures/` with its own
/// `scenarios.json`, run through the same runner with its own adapter. Internal to the workspace: adapter authors
/// use ``OpenCatConformance`` alone.
public enum ConformanceSections {
    /// Folder name and title, in the order the report lists them.
    public static let all: [(name: String, title: String)] = [
        ("keyserver", "Key server"), ("llmkeys", "LLM keys"), ("chippipay", "ChippiPay"),
        ("server", "Reference server"), ("operations", "Store operations"),
        ("retention", "Apple Retention Messaging"), ("steamworks", "Steam Web API"),
    ]

    /// The section whose cassettes name one of the five stores (and its scenarios, not the matrix's).
    public static let operations = "operations"

    /// For the operations section, the operations its report lists per store (every `StoreOperation`, in order);
    /// `nil` for a section read as a matrix.
    public static func operationNames(_ name: String) -> [String]? {
        name == operations ? StoreOperation.all.map(\.rawValue) : nil
    }

    /// The section of Apple's Retention Messaging API, whose cassettes name `apple`.
    public static let retention = "retention"
    /// The section of Steam's GetReport and AuthenticateUserTicket, whose cassettes name `steam`.
    public static let steamworks = "steamworks"

    /// The sections whose cassettes name one of the five stores (``operations`` and every section whose adapter is
    /// for a built-in store: ``retention``, ``steamworks``), each with the scenario ids of its catalogue under
    /// `fixtures`: a `--fixtures` cassette with one of them goes to that section, not to the stores' matrix
    /// (``ExtraCassettes``). A section without a catalogue there is left out.
    public static func storeSectionScenarios(in fixtures: URL) throws -> [String: Set<String>] {
        let builtIn = Set(ConformanceAdapterFactory.builtIn.map(\.store))
        var scenarios: [String: Set<String>] = [:]
        for (name, _) in all where name == operations || store(ofSection: name).map(builtIn.contains) == true {
            let catalogue = fixtures.appendingPathComponent(name + "/scenarios.json")
            guard FileManager.default.fileExists(atPath: catalogue.path) else { continue }
            scenarios[name] = Set(try ScenarioCatalogue.load(from: catalogue).scenarios.map(\.id))
        }
        return scenarios
    }

    /// The adapter a section's cassettes run with.
    public static func adapter(_ name: String, _ section: SectionCredentials) -> ConformanceAdapterFactory? {
        switch name {
        case "keyserver": .keyServer(section)
        case "llmkeys": .llmKeys
        case "chippipay": .chippiPay(section)
        case "server": .server(section)
        case retention: .retentionMessaging
        case steamworks: .steamworks
        default: nil
        }
    }

    /// The adapters a section's cassettes run with: the one of ``adapter(_:_:)``, or for `operations` the five
    /// stores' adapters driven through their ``StoreOperations``.
    public static func adapters(_ name: String, _ section: SectionCredentials) -> [ConformanceAdapterFactory] {
        if name == operations { return ConformanceAdapterFactory.builtIn.map(ConformanceAdapterFactory.operations) }
        return adapter(name, section).map { [$0] } ?? []
    }

    /// The store a section's cassettes name in their `store` field, by folder name: its adapter's store (so a new
    /// section's cassettes are read once ``adapter(_:_:)`` knows it).
    public static func store(ofSection name: String) -> Store? {
        adapter(name, placeholderCredentials)?.store
    }

    /// Credentials for asking an adapter factory its store; never used to run anything.
    private static let placeholderCredentials = SectionCredentials()

    /// One section of a fixtures folder, on fresh section credentials; nil when the folder has no such section.
    /// - Parameter extraCassettes: further cassette files this section also runs, against its own catalogue (the
    ///   section's share of ``ExtraCassettes``, from `--fixtures`).
    public static func suite(
        _ name: String,
        in fixtures: URL,
        extraCassettes: [URL] = [],
        parallelism: Int = 1,
        stores: Set<String> = [],
        scenarios: Set<String> = [],
        section: SectionCredentials = SectionCredentials()
    ) throws -> ConformanceSuite? {
        let folder = fixtures.appendingPathComponent(name)
        let catalogue = folder.appendingPathComponent("scenarios.json")
        let adapters = adapters(name, section)
        guard FileManager.default.fileExists(atPath: catalogue.path), !adapters.isEmpty else { return nil }
        return try ConformanceSuite(
            catalogue: ScenarioCatalogue.load(from: catalogue),
            cassetteFolders: [folder],
            cassetteFiles: extraCassettes,
            adapters: adapters,
            stores: stores,
            scenarios: scenarios,
            parallelism: parallelism,
            credentials: section.applied(to: ConformanceCredentials())
        )
    }

    /// Every section of a fixtures folder that has one, by folder name.
    public static func suites(in fixtures: URL, parallelism: Int = 1, scenarios: Set<String> = []) throws
        -> [String: ConformanceSuite]
    {
        var suites: [String: ConformanceSuite] = [:]
        for (name, _) in all {
            suites[name] = try suite(name, in: fixtures, parallelism: parallelism, scenarios: scenarios)
        }
        return suites
    }
}

extension VerifiedPurchase {
    /// How a section reports a call whose answer is not a purchase (LLM keys, Retention Messaging, Steam's report and
    /// tickets): active, `productId` the call (`input.kind`), `storeStatus` the answer in a line, `quantity` what it
    /// counts, dated by the run's clock.
    static func sectionAnswer(
        _ proof: PurchaseProof,
        transactionId: String? = nil,
        status: String,
        quantity: Int,
        purchaser: String? = nil,
        environment: Environment = .production,
        at date: Date
    ) -> VerifiedPurchase {
        VerifiedPurchase(
            store: proof.store,
            transactionId: transactionId ?? proof.token.revealed,
            productId: proof.kind.rawValue,
            purchaser: purchaser,
            purchaseDate: date,
            state: .active,
            environment: environment,
            quantity: quantity,
            storeStatus: status
        )
    }
}

extension JSONDecoder {
    /// Reads a cassette's license payload (RFC 3339 dates).
    static var licensePayload: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
