public import Foundation
import HTTPTypes
public import MockStores
import MockStoresServer
import OpenCatCore
import OpenCatTesting
import StoreAdapters

/// Runs store adapters against recorded cassettes over real HTTP to MockStores on 127.0.0.1, and compares every
/// result with the scenario catalogue.
///
/// ```swift
/// let suite = try ConformanceSuite(
///     catalogue: .load(from: fixtures.appendingPathComponent("scenarios.json")),
///     cassetteFolders: [fixtures, myCassettes],
///     adapters: ConformanceAdapterFactory.builtIn + [myAdapterFactory])
/// let report = await suite.run()
/// #expect(report.succeeded, "\(report.renderText())")
/// ```
///
/// Each case gets its own mock server and its own test clock (starting at ``clockStart``, auto-advancing only when
/// no request is in flight), so retry back-off and `Retry-After` cost no real time and a `timeout` fault is
/// reached by moving the clock, not by waiting.
public struct ConformanceSuite: Sendable {
    /// Where every case's clock starts: 2026-11-22T12:00:00Z (cassette dates are written relative to it).
    public static let clockStart = Date(timeIntervalSince1970: 1_795_348_800)

    /// The catalogue.
    public var catalogue: ScenarioCatalogue
    /// The adapters to run, one per store.
    public var adapters: [ConformanceAdapterFactory]
    /// Only these stores (all when empty).
    public var storeFilter: Set<String>
    /// Only these scenarios (all when empty).
    public var scenarioFilter: Set<String>
    /// The credentials of the run.
    public let credentials: ConformanceCredentials
    /// How many cases run at once.
    public var parallelism: Int
    /// The HTTP transport each case's adapter uses (called once per case): a new `URLSessionTransport` by
    /// default; a server-side run can share one AsyncHTTPClient transport.
    public var makeTransport: @Sendable () -> any HTTPTransport = { URLSessionTransport() }
    /// Scenarios that cannot exist for stores the catalogue does not know (third-party adapters):
    /// store → scenario → reason.
    public var additionalNotApplicable: [String: [String: String]]
    /// The cassettes found, each parsed once (App Store payloads signed, placeholders filled).
    public let cassettes: [Cassette]
    /// The files that could not be loaded, with why.
    public let invalidCassettes: [String]

    /// Creates a suite.
    /// - Parameters:
    ///   - catalogue: the scenario catalogue.
    ///   - cassetteFolders: folders searched (recursively) for `*.json` cassettes; the catalogue file and JSON
    ///     schemas are skipped.
    ///   - cassetteFiles: single cassette files run besides those of the folders (an extra folder's cassettes that
    ///     belong to this suite, sorted out by their `store`).
    ///   - adapters: how to build each store's adapter.
    ///   - stores: run only these stores (default all).
    ///   - scenarios: run only these scenarios (default all).
    ///   - parallelism: how many cases run at once.
    ///   - additionalNotApplicable: for stores the catalogue does not know, scenario → reason it cannot exist.
    ///   - variables: extra placeholder values for third-party cassettes.
    ///   - credentials: the run's credentials (default: a fresh set), before `variables` override them.
    /// - Throws: ``ConformanceError`` when a folder cannot be read.
    public init(
        catalogue: ScenarioCatalogue,
        cassetteFolders: [URL],
        cassetteFiles: [URL] = [],
        adapters: [ConformanceAdapterFactory] = ConformanceAdapterFactory.builtIn,
        stores: Set<String> = [],
        scenarios: Set<String> = [],
        parallelism: Int = 1,
        additionalNotApplicable: [String: [String: String]] = [:],
        variables: [String: String] = [:],
        credentials: ConformanceCredentials? = nil
    ) throws {
        self.additionalNotApplicable = additionalNotApplicable
        self.catalogue = catalogue
        self.adapters = adapters
        self.storeFilter = stores
        self.scenarioFilter = scenarios
        self.parallelism = max(1, parallelism)
        let credentials = try (credentials ?? ConformanceCredentials()).overriding(variables)
        self.credentials = credentials
        var files: [URL] = []
        for folder in cassetteFolders {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw ConformanceError("\(folder.path): not a folder of cassettes")
            }
            let sections = Self.sectionFolders(in: folder).map(\.standardizedFileURL.path)
            files += try Cassette.cassetteFiles(in: folder).filter { file in
                let path = file.standardizedFileURL.path
                return file.lastPathComponent != "scenarios.json" && !file.lastPathComponent.hasSuffix(".schema.json")
                    && !sections.contains { path.hasPrefix($0 + "/") }
            }
        }
        files += cassetteFiles
        let loader = credentials.fixtureLoader
        var cassettes: [Cassette] = []
        var invalid: [String] = []
        for file in files {
            do { cassettes.append(try loader.load(file)) } catch { invalid.append(String(describing: error)) }
        }
        self.cassettes = cassettes
        self.invalidCassettes = invalid
    }

    /// The sections under a fixtures folder: subfolders with a `scenarios.json` of their own (the key server's), each
    /// run as a suite of its own and left out of the folder's main run.
    public static func sectionFolders(in folder: URL) -> [URL] {
        let children = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return children.filter {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("scenarios.json").path)
        }.sorted { $0.path < $1.path }
    }

    /// Loads one cassette file with the run's credentials (or others): see `FixtureLoader`.
    /// - Throws: `CassetteError` naming the file and the field.
    public func loadCassette(_ url: URL, credentials: ConformanceCredentials? = nil) throws -> Cassette {
        try (credentials ?? self.credentials).fixtureLoader.load(url)
    }

    /// One cell of the matrix: a store and a scenario.
    public struct CellID: Sendable, Hashable, CustomStringConvertible {
        /// The store (`apple`, `google`, `stripe`, `paypal`, `steam` or a third party's).
        public var store: String
        /// The scenario's id in the catalogue.
        public var scenario: String

        /// Creates a cell id.
        public init(store: String, scenario: String) {
            self.store = store
            self.scenario = scenario
        }

        public var description: String { "\(store) × \(scenario)" }
    }

    /// The stores of the run: the catalogue's, then any other store a cassette is for (filtered).
    public var stores: [String] {
        var stores = catalogue.stores.map(\.rawValue)
        for cassette in cassettes where !stores.contains(cassette.store.rawValue) {
            stores.append(cassette.store.rawValue)
        }
        return storeFilter.isEmpty ? stores : stores.filter(storeFilter.contains)
    }

    /// The scenarios of the run, in catalogue order (filtered).
    public var scenarioIds: [String] {
        let ids = catalogue.scenarios.map(\.id)
        return scenarioFilter.isEmpty ? ids : ids.filter(scenarioFilter.contains)
    }

    /// Every cell of the run, store by store.
    public var cellIDs: [CellID] { stores.flatMap { store in scenarioIds.map { CellID(store: store, scenario: $0) } } }

    /// Runs one cell: not applicable, failed for want of a cassette, or the result of its cassettes.
    public func cell(_ id: CellID) async -> ConformanceReport.Cell {
        let matching = cassettes.filter { $0.store.rawValue == id.store && $0.scenario == id.scenario }
        if let reason = catalogue.notApplicableReason(store: Store(rawValue: id.store), scenario: id.scenario)
            ?? additionalNotApplicable[id.store]?[id.scenario]
        {
            guard matching.isEmpty else {
                return .init(
                    store: id.store,
                    scenario: id.scenario,
                    status: .fail,
                    detail: "a cassette exists for a scenario the catalogue says does not apply (\(reason))",
                    cassette: matching.first?.name
                )
            }
            return .init(store: id.store, scenario: id.scenario, status: .notApplicable, detail: reason)
        }
        guard !matching.isEmpty else {
            return .init(store: id.store, scenario: id.scenario, status: .fail, detail: "no cassette for this scenario")
        }
        return await runCell(store: id.store, scenario: id.scenario, cassettes: matching)
    }

    /// Runs every selected cell, ``parallelism`` at a time.
    public func run() async -> ConformanceReport {
        let started = ContinuousClock.now
        var invalid = invalidCassettes
        for cassette in cassettes where catalogue.scenario(cassette.scenario) == nil {
            invalid.append("\(cassette.name): scenario: '\(cassette.scenario)' is not in the catalogue")
        }
        let ids = cellIDs
        var cells = await withTaskGroup(of: ConformanceReport.Cell.self) { group in
            var iterator = ids.makeIterator()
            var collected: [ConformanceReport.Cell] = []
            func addNext() -> Bool {
                guard let id = iterator.next() else { return false }
                group.addTask { await self.cell(id) }
                return true
            }
            for _ in 0..<parallelism { if !addNext() { break } }
            for await cell in group {
                collected.append(cell)
                _ = addNext()
            }
            return collected
        }
        let (stores, scenarioIds) = (self.stores, self.scenarioIds)
        cells.sort {
            (stores.firstIndex(of: $0.store) ?? 0, scenarioIds.firstIndex(of: $0.scenario) ?? 0)
                < (stores.firstIndex(of: $1.store) ?? 0, scenarioIds.firstIndex(of: $1.scenario) ?? 0)
        }
        let elapsed = started.duration(to: ContinuousClock.now)
        return ConformanceReport(
            stores: stores,
            scenarios: scenarioIds,
            cells: cells,
            invalidCassettes: invalid,
            durationMilliseconds: Int(
                elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
            )
        )
    }

    private func runCell(store: String, scenario: String, cassettes: [Cassette]) async -> ConformanceReport.Cell {
        var failures: [String] = []
        for cassette in cassettes {
            failures += await runCase(cassette).map { "\(cassette.name): \($0)" }
        }
        return .init(
            store: store,
            scenario: scenario,
            status: failures.isEmpty ? .pass : .fail,
            detail: failures.isEmpty ? nil : failures.joined(separator: "; "),
            cassette: cassettes.map(\.name).joined(separator: ", ")
        )
    }

    /// Runs one cassette and returns what went wrong (nothing when it passed).
    public func runCase(_ cassette: Cassette) async -> [String] {
        var problems = catalogueDisagreements(cassette)
        let expectation: ConformanceExpectation
        do { expectation = try ConformanceExpectation(cassette.expect) } catch { return problems + ["\(error)"] }
        guard let factory = adapters.first(where: { $0.store == cassette.store }) else {
            return problems + ["no adapter is configured for store \(cassette.store)"]
        }
        let clock = ManualClock(start: Self.clockStart, autoAdvance: true, holdsDuringExternalWork: true)
        let tokenPath = cassette.config["tokenPath"]?.stringValue ?? "/token"
        do {
            problems += try await MockStoreServer.withRunningServer(
                cassettes: [cassette],
                credentials: credentials.mockCredentials(tokenPath: tokenPath),
                clock: clock,
                remoteTime: .sharedClock { clock.advance(by: $0) }
            ) { server in
                let http = HTTPClient(
                    transport: makeTransport(),
                    retryPolicy: RetryPolicy(maxAttempts: 3, jitter: .none),
                    clock: clock,
                    timeout: .seconds(10)
                )
                let environment = ConformanceEnvironment(
                    baseURL: server.baseURL,
                    config: cassette.config,
                    credentials: credentials,
                    httpClient: http
                )
                let adapter = try factory.make(environment)
                let repetitions = min(max(1, cassette.expect.repeat ?? 1), Int(Cassette.maximumRepeat))
                var outcomes: [Result<VerifiedPurchase, any Error>] = []
                for _ in 0..<repetitions {
                    do { outcomes.append(.success(try await adapter.verify(cassette.proof))) } catch {
                        outcomes.append(.failure(error))
                    }
                }
                var found: [String] = []
                for (index, outcome) in outcomes.enumerated() {
                    let label = repetitions > 1 ? "verification \(index + 1): " : ""
                    found += expectation.problems(with: outcome).map { label + $0 }
                }
                if repetitions > 1, case .success(let first)? = outcomes.first {
                    for case .success(var later) in outcomes.dropFirst() {
                        later.finalizedByAdapter = first.finalizedByAdapter
                        later.verifiedAt = first.verifiedAt
                        later.storeStatus = first.storeStatus  // diagnostic: "Approved" then "Succeeded"
                        if later != first { found.append("a repeated verification gave a different result") }
                    }
                }
                found += server.unmatchedRequests.map { "unmatched request: \($0)" }
                found += server.unusedInteractions.map { "unused interaction: \($0)" }
                return found
            }
        } catch {
            problems.append("harness: \(error)")
        }
        return problems
    }

    /// Where the cassette's `expect` contradicts the catalogue.
    public func catalogueDisagreements(_ cassette: Cassette) -> [String] {
        guard let scenario = catalogue.scenario(cassette.scenario) else { return [] }
        var problems: [String] = []
        for (key, expected) in scenario.expect {
            let actual: String?
            switch key {
            case "outcome": actual = cassette.expect.outcome.rawValue
            case "state": actual = cassette.expect.state
            case "code": actual = cassette.expect.code
            case "environment": actual = cassette.expect.environment
            case "finalized": actual = cassette.expect.finalized.map { String($0) }
            case "willRenew": actual = cassette.expect.willRenew.map { String($0) }
            case "repeat": actual = cassette.expect.repeat.map { String($0) }
            default: actual = cassette.expect.additional[key].map(Self.scalarText)
            }
            if actual != expected.description {
                problems.append(
                    "expect.\(key) is '\(actual ?? "missing")' but the catalogue says '\(expected)' for \(scenario.id)"
                )
            }
        }
        return problems
    }

    static func scalarText(_ value: JSONValue) -> String {
        switch value {
        case .string(let text), .number(let text): return text
        case .bool(let flag): return String(flag)
        default: return String(describing: value)
        }
    }
}
