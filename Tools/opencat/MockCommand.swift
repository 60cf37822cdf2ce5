import ArgumentParser
import Foundation
import MockStores
import MockStoresServer
import OpenCatConformance
import OpenCatConformanceSections
import OpenCatCore

/// `opencat mock …`: run MockStores from the command line.
struct MockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock",
        abstract: "Run the mock stores.",
        subcommands: [MockServe.self]
    )
}

/// `opencat mock serve`: serve cassettes on 127.0.0.1 until interrupted.
struct MockServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve cassettes over HTTP on 127.0.0.1 (Stripe, PayPal, Google, Steam, App Store, OpenCat APIs).",
        discussion: """
            The server checks credentials the way each store does. Placeholders in the cassettes ({{stripe.secretKey}}, \
            …) take their values from --secrets (a JSON object of name → value); names it does not give are \
            generated for the session and written to --credentials-out, so a client knows what the mock accepts.
            """
    )

    @Option(name: .customLong("port"), help: "The port (0: any free port).")
    var port: Int = 8080

    @Option(
        name: .customLong("root"),
        help: "The OpenCat checkout whose Fixtures/ to serve (default: found from the current folder)."
    )
    var root: String?

    @Option(name: .customLong("fixtures"), help: "A folder of cassettes (default: Fixtures/). Repeatable.")
    var fixtures: [String] = []

    @Option(name: .customLong("store"), help: "Serve only this store's cassettes (repeatable).")
    var stores: [String] = []

    @Option(name: .customLong("scenario"), help: "Serve only this scenario's cassettes (repeatable).")
    var scenarios: [String] = []

    @Option(
        name: .customLong("secrets"),
        help: "A JSON file of placeholder values (e.g. {\"stripe.secretKey\": \"sk_test_…\"})."
    )
    var secretsFile: String?

    @Option(
        name: .customLong("credentials-out"),
        help: "Where to write the placeholder values in force (JSON, mode 0600)."
    )
    var credentialsOut: String?

    func validate() throws {
        // ArgumentParser exits 64 (EX_USAGE) with this message; without it 70000 would bind another port.
        do {
            try MockStoreServer.validate(port: port)
        } catch {
            throw ValidationError("--port \(port) is not a TCP port: expected 0...65535 (0: any free port)")
        }
    }

    func run() async throws {
        let root = try root.map { URL(fileURLWithPath: $0) } ?? ConformanceCommand.findRoot()
        let folders =
            fixtures.isEmpty ? [root.appendingPathComponent("Fixtures")] : fixtures.map { URL(fileURLWithPath: $0) }
        var overrides: [String: String] = [:]
        if let secretsFile {
            guard let data = FileManager.default.contents(atPath: secretsFile),
                let object = try? JSONDecoder().decode([String: String].self, from: data)
            else { throw ValidationError("\(secretsFile): expected a JSON object of strings") }
            overrides = object
        }
        let catalogue = try ScenarioCatalogue.load(from: root.appendingPathComponent("Fixtures/scenarios.json"))
        let suite = try ConformanceSuite(
            catalogue: catalogue,
            cassetteFolders: folders,
            stores: Set(stores),
            scenarios: Set(scenarios)
        )
        // The sections' cassettes hold licenses signed with the run's keys.
        let credentials = SectionCredentials().applied(to: try suite.credentials.overriding(overrides))
        var cassettes: [Cassette] = []
        for folder in folders {
            for file in try Cassette.cassetteFiles(in: folder)
            where file.lastPathComponent != "scenarios.json"
                && !file.lastPathComponent.hasSuffix(".schema.json")
            {
                let cassette = try suite.loadCassette(file, credentials: credentials)
                if (stores.isEmpty || stores.contains(cassette.store.rawValue))
                    && (scenarios.isEmpty || scenarios.contains(cassette.scenario))
                {
                    cassettes.append(cassette)
                }
            }
        }
        if let credentialsOut {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            guard
                FileManager.default.createFile(
                    atPath: credentialsOut,
                    contents: try encoder.encode(credentials.variables),
                    attributes: [.posixPermissions: 0o600]
                )
            else { throw ValidationError("cannot write \(credentialsOut)") }
        }
        let server = MockStoreServer(
            cassettes: cassettes,
            credentials: credentials.mockCredentials(tokenPath: "/token"),
            port: port
        )
        let url = try await server.start()
        var banner =
            "MockStores listening on \(url.absoluteString) with \(cassettes.count) cassettes. Ctrl-C stops it.\n"
        if credentialsOut == nil { banner += "(pass --credentials-out FILE to see the credentials the mock accepts)\n" }
        FileHandle.standardOutput.write(Data(banner.utf8))  // unbuffered: seen at once when piped
        try await withTaskCancellationHandler {
            while !Task.isCancelled { try await Task.sleep(for: .seconds(3600)) }
        } onCancel: {
            Task { await server.stop() }
        }
    }
}
