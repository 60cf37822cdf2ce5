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
    /// default; `opencat conformance --transport ahc` shares one AsyncHTTPClient transport.
    public var makeTransport: @Sendable () -> any HTTPTransport = { URLSessionTransport() }
    /// Scenarios that cannot exist for stores the catalogue does not know (third-party adapters):
    /// store → scenario → reason.
    public var additionalNotApplicable: [String: [String: String]]
    private let cassetteFiles: [URL]

    /// Creates a suite.
    /// - Parameters:
    ///   - catalogue: the scenario catalogue.
    ///   - cassetteFolders: folders searched (recursively) for `*.json` cassettes; the catalogue file and JSON
    ///     schemas are skipped.
    ///   - adapters: how to build each store's adapter.
    ///   - stores: run only these stores (default all).
    ///   - scenarios: run only these scenarios (default all).
    ///   - parallelism: how many cases run at once.
    ///   - additionalNotApplicable: for stores the catalogue does not know, scenario → reason it cannot exist.
    ///   - variables: extra placeholder values for third-party cassettes.
    /// - Throws: ``ConformanceError`` when a folder cannot be read.
    public init(
        catalogue: ScenarioCatalogue, cassetteFolders: [URL], adapters: [ConformanceAdapterFactory] = ConformanceAdapterFactory.builtIn,
        stores: Set<String> = [], scenarios: Set<String> = [], parallelism: Int = 1,
        additionalNotApplicable: [String: [String: String]] = [:], variables: [String: String] = [:]
    ) throws {
        self.additionalNotApplicable = additionalNotApplicable
        self.catalogue = catalogue
        self.adapters = adapters
        self.storeFilter = stores
        self.scenarioFilter = scenarios
        self.parallelism = max(1, parallelism)
        self.credentials = try ConformanceCredentials().overriding(variables)
        var files: [URL] = []
        for folder in cassetteFolders {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ConformanceError("\(folder.path): not a folder of cassettes")
            }
            files += try Cassette.cassetteFiles(in: folder).filter {
                $0.lastPathComponent != "scenarios.json" && !$0.lastPathComponent.hasSuffix(".schema.json")
            }
        }
        self.cassetteFiles = files
    }

    /// Loads one cassette file: mints the App Store payloads it lists and fills its placeholders.
    /// - Throws: `CassetteError` (naming the file and the field) or ``ConformanceError``.
    public func loadCassette(_ url: URL, credentials: ConformanceCredentials? = nil) throws -> Cassette {
        let credentials = credentials ?? self.credentials
        let data = try Cassette.readFile(at: url, displayName: Self.displayName(url))  // size-capped
        var variables = credentials.variables
        if let raw = try? JSONValue(parsing: data), case .object(let payloads)? = raw["config"]?["signedPayloads"] {
            for (name, payload) in payloads {
                let jws = credentials.appleCA.signJWS(payload)
                variables["apple.signed.\(name)"] = jws
                variables["apple.tampered.\(name)"] = Self.tampered(jws, payload: payload)
            }
        }
        return try Cassette.decode(data, file: Self.displayName(url), variables: variables)
    }

    /// Runs every selected case.
    public func run() async -> ConformanceReport {
        let started = ContinuousClock.now
        var invalid: [String] = []
        var cassettes: [Cassette] = []
        for file in cassetteFiles {
            do {
                let cassette = try loadCassette(file)
                cassettes.append(cassette)
            } catch {
                invalid.append(String(describing: error))
            }
        }
        var stores = catalogue.stores.map(\.rawValue)
        for cassette in cassettes where !stores.contains(cassette.store.rawValue) { stores.append(cassette.store.rawValue) }
        if !storeFilter.isEmpty { stores = stores.filter(storeFilter.contains) }
        var scenarioIds = catalogue.scenarios.map(\.id)
        if !scenarioFilter.isEmpty { scenarioIds = scenarioIds.filter(scenarioFilter.contains) }
        for cassette in cassettes where catalogue.scenario(cassette.scenario) == nil {
            invalid.append("\(cassette.name): scenario: '\(cassette.scenario)' is not in the catalogue")
        }

        var jobs: [(store: String, scenario: String, cassettes: [Cassette])] = []
        var cells: [ConformanceReport.Cell] = []
        for store in stores {
            for scenario in scenarioIds {
                let matching = cassettes.filter { $0.store.rawValue == store && $0.scenario == scenario }
                if let reason = catalogue.notApplicableReason(store: Store(rawValue: store), scenario: scenario)
                    ?? additionalNotApplicable[store]?[scenario]
                {
                    if matching.isEmpty {
                        cells.append(.init(store: store, scenario: scenario, status: .notApplicable, detail: reason))
                    } else {
                        cells.append(.init(store: store, scenario: scenario, status: .fail,
                                           detail: "a cassette exists for a scenario the catalogue says does not apply (\(reason))",
                                           cassette: matching.first?.name))
                    }
                } else if matching.isEmpty {
                    cells.append(.init(store: store, scenario: scenario, status: .fail, detail: "no cassette for this scenario"))
                } else {
                    jobs.append((store, scenario, matching))
                }
            }
        }
        let results = await withTaskGroup(of: ConformanceReport.Cell.self) { group in
            var iterator = jobs.makeIterator()
            var collected: [ConformanceReport.Cell] = []
            func addNext() -> Bool {
                guard let job = iterator.next() else { return false }
                group.addTask { await self.runCell(store: job.store, scenario: job.scenario, cassettes: job.cassettes) }
                return true
            }
            for _ in 0..<parallelism { if !addNext() { break } }
            for await cell in group {
                collected.append(cell)
                _ = addNext()
            }
            return collected
        }
        cells += results
        cells.sort { (stores.firstIndex(of: $0.store) ?? 0, scenarioIds.firstIndex(of: $0.scenario) ?? 0)
            < (stores.firstIndex(of: $1.store) ?? 0, scenarioIds.firstIndex(of: $1.scenario) ?? 0) }
        let elapsed = started.duration(to: ContinuousClock.now)
        return ConformanceReport(
            stores: stores, scenarios: scenarioIds, cells: cells, invalidCassettes: invalid,
            durationMilliseconds: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
    }

    private func runCell(store: String, scenario: String, cassettes: [Cassette]) async -> ConformanceReport.Cell {
        var failures: [String] = []
        for cassette in cassettes {
            failures += await runCase(cassette).map { "\(cassette.name): \($0)" }
        }
        return .init(
            store: store, scenario: scenario, status: failures.isEmpty ? .pass : .fail,
            detail: failures.isEmpty ? nil : failures.joined(separator: "; "), cassette: cassettes.map(\.name).joined(separator: ", "))
    }

    /// Runs one cassette and returns what went wrong (nothing when it passed).
    public func runCase(_ cassette: Cassette) async -> [String] {
        var problems = catalogueDisagreements(cassette)
        guard let factory = adapters.first(where: { $0.store == cassette.store }) else {
            return problems + ["no adapter is configured for store \(cassette.store)"]
        }
        let clock = ManualClock(start: Self.clockStart, autoAdvance: true, holdsDuringExternalWork: true)
        let tokenPath = cassette.config["tokenPath"]?.stringValue ?? "/token"
        do {
            problems += try await MockStoreServer.withRunningServer(
                cassettes: [cassette], credentials: credentials.mockCredentials(tokenPath: tokenPath), clock: clock,
                remoteTime: .sharedClock { clock.advance(by: $0) }
            ) { server in
                let http = HTTPClient(
                    transport: makeTransport(), retryPolicy: RetryPolicy(maxAttempts: 3, jitter: .none), clock: clock,
                    timeout: .seconds(10))
                let environment = ConformanceEnvironment(
                    baseURL: server.baseURL, config: cassette.config, credentials: credentials, httpClient: http)
                let adapter = try factory.make(environment)
                let repetitions = min(max(1, cassette.expect.repeat ?? 1), Int(Cassette.maximumRepeat))
                var outcomes: [Result<VerifiedPurchase, any Error>] = []
                for _ in 0..<repetitions {
                    do { outcomes.append(.success(try await adapter.verify(cassette.proof))) } catch { outcomes.append(.failure(error)) }
                }
                var found: [String] = []
                for (index, outcome) in outcomes.enumerated() {
                    let label = repetitions > 1 ? "verification \(index + 1): " : ""
                    found += Self.compare(outcome, with: cassette.expect).map { label + $0 }
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
                problems.append("expect.\(key) is '\(actual ?? "missing")' but the catalogue says '\(expected)' for \(scenario.id)")
            }
        }
        return problems
    }

    /// A date as integer milliseconds since 1970 (rounded), as stores keep them.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        return Int64(exactly: value) ?? (value > 0 ? .max : .min)
    }

    /// A date in ISO 8601 with milliseconds, for messages.
    static func isoMilliseconds(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    static func compare(_ outcome: Result<VerifiedPurchase, any Error>, with expect: Cassette.Expectation) -> [String] {
        switch (outcome, expect.outcome) {
        case (.success(let purchase), .verified):
            var problems: [String] = []
            func check(_ name: String, _ expected: String?, _ actual: String?) {
                if let expected, expected != actual { problems.append("\(name): expected \(expected), got \(actual ?? "nil")") }
            }
            check("state", expect.state, purchase.state.rawValue)
            check("productId", expect.productId, purchase.productId)
            check("transactionId", expect.transactionId, purchase.transactionId)
            check("originalTransactionId", expect.originalTransactionId, purchase.originalTransactionId)
            check("environment", expect.environment, purchase.environment.rawValue)
            check("finalized", expect.finalized.map { String($0) }, String(purchase.finalizedByAdapter))
            check("quantity", expect.quantity.map { String($0) }, String(purchase.quantity))
            check("store", expect.store, purchase.store.rawValue)
            check("purchaser", expect.purchaser, purchase.purchaser)
            check("willRenew", expect.willRenew.map { String($0) }, String(purchase.willRenew))
            check("storeStatus", expect.storeStatus, purchase.storeStatus)
            let dates: [(String, String?, Date?)] = [
                ("purchaseDate", expect.purchaseDate, purchase.purchaseDate),
                ("expirationDate", expect.expirationDate, purchase.expirationDate),
                ("gracePeriodExpirationDate", expect.gracePeriodExpirationDate, purchase.gracePeriodExpirationDate),
                ("verifiedAt", expect.verifiedAt, purchase.verifiedAt),
            ]
            for (name, expected, actual) in dates {
                guard let expected else { continue }
                // To the millisecond: store timestamps are integer milliseconds.
                if Cassette.Expectation.date(expected).map(Self.milliseconds) != actual.map(Self.milliseconds) {
                    problems.append("\(name): expected \(expected), got \(actual.map(Self.isoMilliseconds) ?? "nil")")
                }
            }
            let amounts: [(String, Cassette.Expectation.Price?, Money?)] = [
                ("price", expect.price, purchase.price), ("refundedAmount", expect.refundedAmount, purchase.refundedAmount),
            ]
            for (name, expected, actual) in amounts {
                guard let expected else { continue }
                // Exact: the amount as a Decimal, the currency as its code.
                if actual?.amount != Money.parseDecimal(expected.amount) || actual?.currency != expected.currency.uppercased() {
                    problems.append("\(name): expected \(expected.amount) \(expected.currency), got \(actual.map(\.description) ?? "nil")")
                }
            }
            return problems
        case (.success(let purchase), _):
            return ["expected error \(expect.code ?? "?"), got a verified purchase in state \(purchase.state.rawValue)"]
        case (.failure(let error as StoreAdapterError), .error):
            return expect.code == error.code.rawValue ? [] : ["expected error \(expect.code ?? "?"), got \(error.code) (\(error.message))"]
        case (.failure(let error), _):
            return ["expected \(expect.outcome == .verified ? "state \(expect.state ?? "?")" : "error \(expect.code ?? "?")"), got \(error)"]
        }
    }

    static func scalarText(_ value: JSONValue) -> String {
        switch value {
        case .string(let text), .number(let text): return text
        case .bool(let flag): return String(flag)
        default: return String(describing: value)
        }
    }

    /// The JWS with its payload altered after signing (an extra member), signature kept.
    static func tampered(_ jws: String, payload: JSONValue) -> String {
        guard case .object(var members) = payload else { return jws + "x" }
        members["tampered"] = .bool(true)
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return jws + "x" }
        let encoded = JSONValue.object(members).serialized().base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "\(parts[0]).\(encoded).\(parts[2])"
    }

    static func displayName(_ url: URL) -> String {
        let components = url.pathComponents
        return components.suffix(3).joined(separator: "/")
    }
}
