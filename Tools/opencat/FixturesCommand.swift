import ArgumentParser
import Foundation
import MockStores
import MockStoresServer
import OpenCatConformance
import OpenCatConformanceSections
import OpenCatCore

/// `opencat fixtures …`: work with cassettes.
struct FixturesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fixtures",
        abstract: "Work with conformance cassettes.",
        subcommands: [FixturesLint.self, FixturesRecord.self]
    )
}

/// `opencat fixtures lint [DIR]`: validate cassettes against the schema rules and the catalogue, and refuse
/// anything that looks like a live credential.
struct FixturesLint: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Validate cassettes: format, fields, catalogue agreement, coverage, and no live-looking secrets."
    )

    @Argument(help: "The folder of cassettes (default: Fixtures/).")
    var folder: String?

    @Option(name: .customLong("catalogue"), help: "The scenario catalogue (default: Fixtures/scenarios.json).")
    var cataloguePath: String?

    @Option(name: .customLong("root"), help: "The OpenCat checkout (default: found from the current folder).")
    var root: String?

    /// Text that looks like a live credential or a signed token; cassettes carry placeholders instead (the same list
    /// `fixtures record` checks before it writes).
    static let forbidden: [(pattern: String, what: String)] = SecretScrubber.liveCredentialPatterns.map {
        ($0.pattern, $0.what)
    }

    func run() async throws {
        let root = try root.map { URL(fileURLWithPath: $0) } ?? ConformanceCommand.findRoot()
        let fixtures = folder.map { URL(fileURLWithPath: $0) } ?? root.appendingPathComponent("Fixtures")
        let catalogue = try ScenarioCatalogue.load(
            from: cataloguePath.map { URL(fileURLWithPath: $0) }
                ?? root.appendingPathComponent("Fixtures/scenarios.json")
        )
        let sections = ConformanceSuite.sectionFolders(in: fixtures).map(\.standardizedFileURL.path)
        var (problems, count) = try lint(
            fixtures,
            catalogue: catalogue,
            root: root,
            coverage: folder == nil,
            skipping: { path in sections.contains { path.hasPrefix($0 + "/") } }
        )
        // Each section (the key server's) against its own catalogue.
        for section in ConformanceSuite.sectionFolders(in: fixtures) {
            let sectionCatalogue = try ScenarioCatalogue.load(from: section.appendingPathComponent("scenarios.json"))
            let (more, files) = try lint(
                section,
                catalogue: sectionCatalogue,
                root: root,
                coverage: folder == nil,
                skipping: { _ in false }
            )
            problems += more
            count += files
        }
        if problems.isEmpty {
            print("\(count) cassettes OK")
        } else {
            problems.forEach { print($0) }
            print("\(problems.count) problems in \(count) cassettes")
            throw ExitCode(1)
        }
    }

    /// Lints the cassettes of one folder against one catalogue; returns the problems and how many files were read.
    func lint(
        _ fixtures: URL,
        catalogue: ScenarioCatalogue,
        root: URL,
        coverage: Bool,
        skipping: (String) -> Bool
    ) throws -> ([String], Int) {
        // The sections' credentials: the key server's and reference server's cassettes hold licences the run signs.
        let suite = try ConformanceSuite(
            catalogue: catalogue,
            cassetteFolders: [fixtures],
            credentials: SectionCredentials().applied(to: ConformanceCredentials())
        )
        var problems: [String] = []
        var present: Set<String> = []
        let files = try Cassette.cassetteFiles(in: fixtures).filter {
            $0.lastPathComponent != "scenarios.json" && !$0.lastPathComponent.hasSuffix(".schema.json")
                && !skipping($0.standardizedFileURL.path)
        }
        for file in files {
            let name = file.path.replacingOccurrences(of: root.path + "/", with: "")
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            for (pattern, what) in Self.forbidden where text.range(of: pattern, options: .regularExpression) != nil {
                problems.append("\(name): contains what looks like \(what); use a {{placeholder}}")
            }
            do {
                let cassette = try suite.loadCassette(file)
                present.insert("\(cassette.store.rawValue)/\(cassette.scenario)")
                if catalogue.scenario(cassette.scenario) == nil {
                    problems.append("\(name): scenario: '\(cassette.scenario)' is not in the catalogue")
                } else if let reason = catalogue.notApplicableReason(store: cassette.store, scenario: cassette.scenario)
                {
                    problems.append(
                        "\(name): the catalogue says \(cassette.scenario) does not apply to \(cassette.store) (\(reason))"
                    )
                }
                problems += suite.catalogueDisagreements(cassette).map { "\(name): \($0)" }
            } catch {
                problems.append(String(describing: error))
            }
        }
        if coverage {
            for store in catalogue.stores {
                for scenario in catalogue.scenarios where scenario.notApplicable[store.rawValue] == nil {
                    if !present.contains("\(store.rawValue)/\(scenario.id)") {
                        problems.append(
                            "\(fixtures.lastPathComponent)/\(store.rawValue)/: no cassette for scenario \(scenario.id)"
                        )
                    }
                }
            }
        }
        return (problems, files.count)
    }
}

/// `opencat fixtures record --store S --upstream URL --out DIR`: a loopback proxy that forwards an adapter's requests
/// to the real API and writes the exchanges as a cassette, every secret replaced and reported.
struct FixturesRecord: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record real exchanges through a loopback proxy into a cassette, every secret replaced.",
        discussion: """
            Point the adapter's base URL at the address printed on the first line and run it once: each request is \
            forwarded to --upstream (one attempt), answered with the upstream's response, and kept. Ctrl-C (or \
            --count exchanges) ends the recording; the cassette is then written atomically to \
            DIR/<store>/<scenario>.json. Every credential, token, key, account id and e-mail address is replaced \
            first: credentials by the placeholders the test harness fills ({{stripe.secretKey}}, \
            {{paypal.clientSecret}}, {{apple.signed.NAME}}, …), so the cassette replays behind MockStores' auth \
            checks, and other data by made-up stand-ins. The report names each placeholder, the kind of value it \
            replaced and where, never the value. `expect` comes from the scenario catalogue: review the cassette, \
            complete `config` and `expect`, then run `opencat fixtures lint DIR`.
            """
    )

    @Option(name: .customLong("store"), help: "The store whose API is recorded (apple, google, stripe, paypal, …).")
    var store: String

    @Option(name: .customLong("upstream"), help: "The real API's base URL (https://api.stripe.com).")
    var upstream: String

    @Option(name: .customLong("out"), help: "The folder of cassettes to write DIR/<store>/<scenario>.json in.")
    var out: String

    @Option(name: .customLong("port"), help: "The proxy's port on 127.0.0.1 (0: any free port).")
    var port: Int = 0

    @Option(name: .customLong("scenario"), help: "The cassette's scenario id, from the catalogue.")
    var scenario: String = "one-time-paid"

    @Option(name: .customLong("count"), help: "Stop after this many exchanges (default: at Ctrl-C).")
    var count: Int?

    @Option(name: .customLong("kind"), help: "The proof kind of input (default: the store's usual one).")
    var kind: String?

    @Option(name: .customLong("token-file"), help: "A file holding the proof handed to the adapter (scrubbed too).")
    var tokenFile: String?

    @Option(name: .customLong("token"), help: "The proof handed to the adapter, when it is not secret (pi_…).")
    var token: String?

    @Option(name: .customLong("product-id"), help: "The product id of input.")
    var productId: String?

    @Option(name: .customLong("config"), help: "A JSON object of adapter settings for config (scrubbed too).")
    var configFile: String?

    @Option(name: .customLong("description"), help: "The cassette's description.")
    var summary: String = "Recorded with opencat fixtures record."

    @Flag(name: .customLong("force"), help: "Replace an existing cassette.")
    var force = false

    @Option(name: .customLong("catalogue"), help: "The scenario catalogue (default: Fixtures/scenarios.json).")
    var cataloguePath: String?

    @Option(name: .customLong("root"), help: "The OpenCat checkout (default: found from the current folder).")
    var root: String?

    func validate() throws {
        do { try MockStoreServer.validate(port: port) } catch {
            throw ValidationError("--port \(port) is not a TCP port: expected 0...65535 (0: any free port)")
        }
        guard let url = URL(string: upstream) else { throw ValidationError("--upstream \(upstream) is not a URL") }
        do { try MockRecorder.validate(upstream: url) } catch { throw ValidationError("--upstream: \(error)") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        let name = /[a-z0-9][a-z0-9._-]*/
        guard store.wholeMatch(of: name) != nil else { throw ValidationError("--store: expected an id like stripe") }
        guard scenario.wholeMatch(of: name) != nil, !scenario.contains("..") else {
            throw ValidationError("--scenario: expected an id like one-time-paid")
        }
        if token != nil, tokenFile != nil { throw ValidationError("give --token or --token-file, not both") }
    }

    /// The proof kind a store's cassettes usually have.
    static func defaultKind(for store: Store) -> PurchaseProof.Kind {
        switch store {
        case .apple: .appleTransactionId
        case .google: .googleProductPurchaseToken
        case .stripe: .stripePaymentIntent
        case .paypal: .paypalOrder
        case .steam: .steamOrder
        default: PurchaseProof.Kind(rawValue: "recorded")
        }
    }

    /// The catalogue's expectation for a scenario, as a cassette's `expect`.
    static func expectation(from values: [String: ScenarioCatalogue.ExpectValue]) -> Cassette.Expectation {
        var expect = Cassette.Expectation(outcome: .init(rawValue: values["outcome"]?.description ?? "verified"))
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            switch (key, value) {
            case ("outcome", _): break
            case ("state", _): expect.state = value.description
            case ("code", _): expect.code = value.description
            case ("environment", _): expect.environment = value.description
            case ("finalized", .bool(let flag)): expect.finalized = flag
            case ("willRenew", .bool(let flag)): expect.willRenew = flag
            case ("repeat", .int(let times)): expect.repeat = times
            case (_, .bool(let flag)): expect.additional[key] = .bool(flag)
            case (_, .int(let number)): expect.additional[key] = .integer(Int64(number))
            case (_, .string(let text)): expect.additional[key] = .string(text)
            }
        }
        if expect.outcome == .verified, expect.state == nil { expect.state = "active" }
        if expect.outcome == .error, expect.code == nil { expect.code = "notFound" }
        return expect
    }

    /// Stops the recorder on SIGINT and SIGTERM (instead of ending the process), so the cassette is still written.
    static func stopping(_ recorder: MockRecorder) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            _ = signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { Task { await recorder.stop() } }
            source.resume()
            return source
        }
    }

    /// `input` from the flags (the token read from --token-file when given).
    func makeInput(store: Store) throws -> Cassette.Input {
        var proof = token
        if let tokenFile {
            guard let data = FileManager.default.contents(atPath: tokenFile) else {
                throw ValidationError("--token-file \(tokenFile): cannot read the file")
            }
            proof = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return Cassette.Input(
            kind: kind.map(PurchaseProof.Kind.init(rawValue:)) ?? Self.defaultKind(for: store),
            token: proof.flatMap { $0.isEmpty ? nil : $0 } ?? "replace-with-the-proof",
            productId: productId
        )
    }

    /// `config` from --config.
    func makeConfig() throws -> [String: JSONValue] {
        guard let configFile else { return [:] }
        guard let data = FileManager.default.contents(atPath: configFile),
            case .object(let members)? = try? JSONValue(parsing: data)
        else { throw ValidationError("--config \(configFile): expected a JSON object") }
        return members
    }

    func run() async throws {
        let storeId = Store(rawValue: store)
        let catalogueURL =
            try cataloguePath.map { URL(fileURLWithPath: $0) }
            ?? (root.map { URL(fileURLWithPath: $0) } ?? ConformanceCommand.findRoot())
            .appendingPathComponent("Fixtures/scenarios.json")
        let catalogue = try ScenarioCatalogue.load(from: catalogueURL)
        guard let entry = catalogue.scenario(scenario) else {
            throw ValidationError("--scenario \(scenario) is not in \(catalogueURL.lastPathComponent)")
        }
        let (input, config) = (try makeInput(store: storeId), try makeConfig())
        let file = URL(fileURLWithPath: out).appendingPathComponent(store).appendingPathComponent("\(scenario).json")
        if !force, FileManager.default.fileExists(atPath: file.path) {
            throw ValidationError("\(file.path) exists; pass --force to replace it")
        }

        let recorder = MockRecorder(upstream: URL(string: upstream)!, port: port, maximumExchanges: count)
        let signals = Self.stopping(recorder)
        defer { signals.forEach { $0.cancel() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await recorder.run() }
            let url = try await recorder.listening()
            let stop = count.map { "after \($0) exchange\($0 == 1 ? "" : "s") or at Ctrl-C" } ?? "at Ctrl-C"
            // Unbuffered: a script (or a test) reads the address from the first line.
            FileHandle.standardOutput.write(
                Data("Recording \(store) on \(url.absoluteString), forwarding to \(upstream); stops \(stop).\n".utf8)
            )
            try await group.waitForAll()
        }

        let exchanges = recorder.exchanges
        if recorder.upstreamFailures > 0 {
            print("\(recorder.upstreamFailures) requests the upstream did not answer were answered 502, not recorded.")
        }
        guard !exchanges.isEmpty else {
            print("No exchange was recorded; nothing written.")
            throw ExitCode(1)
        }
        let recording = SecretScrubber(store: storeId).recording(
            of: exchanges,
            scenario: scenario,
            description: summary,
            input: input,
            config: config,
            expect: Self.expectation(from: entry.expect)
        )
        do { try recording.write(to: file) } catch {
            print("\(error)")
            throw ExitCode(1)
        }
        print("Recorded \(exchanges.count) exchange\(exchanges.count == 1 ? "" : "s") to \(file.path)")
        print("Replaced (placeholder or stand-in, then the kind of value and where; values are never shown):")
        print(recording.report)
        if token == nil, tokenFile == nil {
            print("input.token is a stand-in: set it to the proof the adapter was given.")
        }
        print("Review config and expect, then run: opencat fixtures lint \(out)")
    }
}
