import Foundation
import HTTPTypes
import OpenCatAsyncHTTPClient
import OpenCatCore
import OpenCatServer
import OpenCatTesting
import Synchronization
import Testing
import ToolsTestSupport

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `opencat-server` as an operator deploys it: its own executable, bound where `--host` says, ready only while its
/// database answers, one server per SQLite file, requests logged with an id and no secret, and SIGTERM draining the
/// requests in flight.
@Suite(.serialized)
struct ServerProcessTests {
    static let users = 10
    static func token(_ user: Int) -> String { "process-test-token-\(user)-" + String(repeating: "p", count: 20) }

    /// A folder with a users file and a server configuration naming it.
    struct Setup {
        let folder: URL
        var config: URL { folder.appendingPathComponent("server.json") }
        var ledger: URL { folder.appendingPathComponent("ledger.sqlite") }

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-process-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let users = (0..<ServerProcessTests.users).map {
                ServerUser(userId: "user-\($0)", token: ServerProcessTests.token($0))
            }
            try JSONEncoder().encode(users).write(to: folder.appendingPathComponent("users.json"))
            try Data(#"{"usersFile": "users.json"}"#.utf8).write(to: config)
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    static func get(_ url: String, headers: [String: String] = [:]) async throws -> (Int, String, [String: String]) {
        var request = URLRequest(url: URL(string: url)!)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] { fields["\(name.base)".lowercased()] = "\(value)" }
        return (http?.statusCode ?? 0, String(decoding: data, as: UTF8.self), fields)
    }

    @Test func healthReadyAndTheAPIDocumentAnswerAndRequestsAreLoggedWithAnIdButNoSecret() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let log = setup.folder.appendingPathComponent("server.log")
        try await ServerProcess.run(
            ["--port", "0", "--database", "sqlite:" + setup.ledger.path, "--config", setup.config.path],
            standardError: log
        ) { _, port in
            let base = "http://127.0.0.1:\(port)"
            #expect(try await Self.get(base + "/health").0 == 200)
            let ready = try await Self.get(base + "/ready")
            #expect(ready.0 == 200)
            #expect(ready.1.contains("\"status\":\"ready\""))
            let document = try await Self.get(base + "/openapi.yaml")
            #expect(document.0 == 200)
            #expect(document.1.hasPrefix("openapi:"))
            let wallet = try await Self.get(
                base + "/api/v1/wallet/user-1",
                headers: ["Authorization": "Bearer \(Self.token(1))", "X-Request-Id": "req-wallet-1"]
            )
            #expect(wallet.0 == 200)
            #expect(wallet.2["x-request-id"] == "req-wallet-1")
            let refused = try await Self.get(
                base + "/api/v1/wallet/user-1",
                headers: ["Authorization": "Bearer \(Self.token(2))"]
            )
            #expect(refused.0 == 403)
        }
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(text.contains("request_id=req-wallet-1"))
        #expect(text.contains("route=/api/v1/wallet/{userId}"))
        for user in 0..<Self.users { #expect(!text.contains(Self.token(user))) }
    }

    @Test func aSecondServerOnTheSameSQLiteLedgerIsRefused() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let arguments = ["--port", "0", "--database", "sqlite:" + setup.ledger.path, "--config", setup.config.path]
        try await ServerProcess.run(arguments) { _, _ in
            let second = try await runProcess(ServerProcess.executable.path, arguments)
            #expect(second.status != 0)
            #expect(second.error.contains("another opencat-server already serves"))
        }
    }

    @Test func aMisconfiguredStoreIsNamedWithItsFieldAtStart() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        try Data(
            #"{"usersFile": "users.json", "stores": {"stripe": {"secretKeyEnv": "OPENCAT_TEST_NO_SUCH_VARIABLE"}}}"#
                .utf8
        ).write(to: setup.config)
        let result = try await runProcess(
            ServerProcess.executable.path,
            ["--port", "0", "--database", "sqlite:" + setup.ledger.path, "--config", setup.config.path]
        )
        #expect(result.status != 0)
        #expect(result.error.contains("stores.stripe.secretKeyEnv"))
        #expect(result.error.contains("OPENCAT_TEST_NO_SUCH_VARIABLE"))
    }

    /// The `webhooks` section as the README describes it, on the built executable: a loopback URL is refused at start
    /// (naming the field) unless development mode allows it; then the endpoint it names is registered, and a test
    /// event the app's backend asks for reaches the receiver signed with the secret from `secretFile`.
    @Test func theConfiguredWebhookEndpointIsCheckedAtStartAndReceivesSignedEvents() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let secret = StandardWebhookSecret()
        try Data(secret.serialized.revealed.utf8).write(to: setup.folder.appendingPathComponent("hook.secret"))
        let receiver = WebhookReceiver()
        try await receiver.run { base in
            let hook = base.appendingPathComponent("ok").absoluteString
            func config(development: Bool) -> String {
                """
                {"usersFile": "users.json", "openCat": {"apiKeySHA256": ["\(BearerTokens.hash("ocat_public"))"],
                 "secretKeySHA256": ["\(BearerTokens.hash("ocat_sk_process"))"]},
                 "webhooks": {"allowPrivateNetworks": \(development), "endpoints": [
                   {"id": "backend", "app": "cat", "url": "\(hook)", "secretFile": "hook.secret"}]}}
                """
            }
            let arguments = ["--port", "0", "--database", "sqlite:" + setup.ledger.path, "--config", setup.config.path]
            try Data(config(development: false).utf8).write(to: setup.config)
            let refused = try await runProcess(ServerProcess.executable.path, arguments)
            #expect(refused.status != 0 && refused.error.contains("webhooks.endpoints.backend.url"))
            try Data(config(development: true).utf8).write(to: setup.config)
            try await ServerProcess.run(arguments) { _, port in
                let transport = AsyncHTTPClientTransport()
                defer { Task { try? await transport.shutdown() } }
                var request = HTTPRequest(
                    method: .post,
                    scheme: "http",
                    authority: "127.0.0.1:\(port)",
                    path: "/v1/webhooks/endpoints/backend/test"
                )
                request.headerFields[.authorization] = "Bearer ocat_sk_process"
                try await waitUntil("the configured endpoint is registered and takes a test event") {
                    try await transport.send(request, body: nil).status.code == 202
                }
                try await waitUntil("the test event delivered") { !receiver.delivered("/ok").isEmpty }
            }
            let item = try #require(receiver.delivered("/ok").first)
            try item.verify([secret])
            #expect(item.body.contains("\"type\":\"test\""))
        }
    }

    /// An address of this machine other than loopback, if it has one.
    static let nonLoopbackAddress: String? = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else {
                continue
            }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard
                getnameinfo(
                    address,
                    socklen_t(MemoryLayout<sockaddr_in>.size),
                    &host,
                    socklen_t(host.count),
                    nil,
                    0,
                    NI_NUMERICHOST
                ) == 0
            else { continue }
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.hasPrefix("127.") { return text }
        }
        return nil
    }()

    @Test(.enabled(if: nonLoopbackAddress != nil, "this machine has no address but loopback"))
    func hostZeroBindsEveryInterface() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let address = try #require(Self.nonLoopbackAddress)
        try await ServerProcess.run(
            [
                "--host", "0.0.0.0", "--port", "0", "--database", "sqlite:" + setup.ledger.path, "--config",
                setup.config.path,
            ]
        ) { _, port in
            let outside = try await Self.get("http://\(address):\(port)/health")
            #expect(outside.0 == 200)
            let loopback = try await Self.get("http://127.0.0.1:\(port)/health")
            #expect(loopback.0 == 200)
        }
    }

    @Test func sigtermDuringALoadOfSpendsLosesNoneThatWereAcknowledged() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        do {
            let ledger = try SQLiteLedgerStore(fileURL: setup.ledger)
            for user in 0..<Self.users {
                _ = try await ledger.redeem(
                    store: "apple",
                    transactionId: "seed-\(user)",
                    userId: "user-\(user)",
                    amount: 1_000
                )
            }
        }
        let transport = AsyncHTTPClientTransport()
        let spends = 400
        let run: (value: [Outcome], status: Int32)
        do {
            run = try await ServerProcess.run(
                ["--port", "0", "--database", "sqlite:" + setup.ledger.path, "--config", setup.config.path]
            ) { server, port in
                let acknowledged = Counter()
                let outcomes = await withTaskGroup(of: Outcome.self) { group in
                    for index in 0..<spends {
                        group.addTask {
                            let outcome = await Self.spend(index, port: port, transport: transport)
                            if outcome.entryId != nil, acknowledged.value.add(1, ordering: .relaxed).newValue == 40 {
                                try? server.send(SIGTERM)
                            }
                            return outcome
                        }
                    }
                    var all: [Outcome] = []
                    for await outcome in group { all.append(outcome) }
                    return all
                }
                // Fewer than 40 acknowledged (the test fails below): stop it anyway rather than wait.
                if acknowledged.value.load(ordering: .relaxed) < 40 { try? server.send(SIGTERM) }
                // The server exits by itself once it has drained and its clients have gone.
                try await transport.shutdown()
                for try await _ in server.lines {}
                return outcomes
            }
        } catch {
            try? await transport.shutdown()
            throw error
        }
        let (outcomes, status) = run
        #expect(status == 0, "SIGTERM is a graceful stop: exit 0")
        let acknowledgedIds = outcomes.compactMap(\.entryId)
        #expect(acknowledgedIds.count >= 40)
        let ledger = try SQLiteLedgerStore(fileURL: setup.ledger)
        var entries: Set<String> = []
        for user in 0..<Self.users {
            for entry in try await ledger.entries(of: "user-\(user)", limit: 1_000) { entries.insert(entry.id) }
        }
        for id in acknowledgedIds { #expect(entries.contains(id)) }
    }

    typealias Outcome = ServerProcess.Outcome

    static func spend(_ index: Int, port: Int, transport: AsyncHTTPClientTransport) async -> Outcome {
        await ServerProcess.spend(
            index,
            user: index % users,
            token: token(index % users),
            key: "term",
            port: port,
            transport: transport
        )
    }

    @Test func readyFollowsItsPostgreSQLServerWithoutARestart() async throws {
        // A PostgreSQL server of this test's own, so stopping it disturbs no other test.
        let script = TestEnvironment.repositoryRoot.appendingPathComponent("Tools/ci/start-postgres.sh").path
        let (url, folder, environment) = try await Self.startOwnPostgres(script: script)
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: folder + ".pw")
        }
        do {
            try await checkReadiness(url: url, script: script, environment: environment)
        } catch {
            _ = try? await runProcess("/bin/bash", [script, "stop"], environment: environment)
            throw error
        }
        _ = try? await runProcess("/bin/bash", [script, "stop"], environment: environment)
    }

    /// Starts a PostgreSQL server on a random port clear of the tests' own (15432), trying another port when the one
    /// drawn is taken (a server of an interrupted run, or any other listener); the failure names the server's log.
    static func startOwnPostgres(
        script: String
    ) async throws -> (url: String, folder: String, environment: [String: String?]) {
        var failures: [String] = []
        for _ in 0..<3 {
            let port = 55_500 + Int.random(in: 0..<90)
            let folder = "/tmp/opencat-pg-ready-\(UUID().uuidString.prefix(8))"
            let environment: [String: String?] = ["OPENCAT_PG_PORT": "\(port)", "OPENCAT_PG_DIR": folder]
            let started = try await runProcess("/bin/bash", [script], environment: environment)
            if started.status == 0 {
                return (started.output.trimmingCharacters(in: .whitespacesAndNewlines), folder, environment)
            }
            let log = (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? ""
            failures.append("port \(port): exit \(started.status) \(started.error) \(log.suffix(400))")
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: folder + ".pw")
        }
        throw OwnPostgresDidNotStart(
            description: "PostgreSQL did not start: \(failures) — run `\(TestEnvironment.provisionCommand)`"
        )
    }

    struct OwnPostgresDidNotStart: Error, CustomStringConvertible { let description: String }

    func checkReadiness(url: String, script: String, environment: [String: String?]) async throws {
        let setup = try Setup()
        defer { setup.remove() }
        try await ServerProcess.run(
            ["--port", "0", "--database", "env:OPENCAT_READY_TEST_URL", "--config", setup.config.path],
            environment: ["OPENCAT_READY_TEST_URL": url]
        ) { _, serverPort in
            let ready = "http://127.0.0.1:\(serverPort)/ready"
            #expect(try await Self.get(ready).0 == 200)
            let stopped = try await runProcess("/bin/bash", [script, "stop"], environment: environment)
            #expect(stopped.status == 0)
            let down = try await Self.get(ready)
            #expect(down.0 == 503)
            #expect(down.2["retry-after"] != nil)
            #expect(try await Self.get("http://127.0.0.1:\(serverPort)/health").0 == 200)
            let restarted = try await runProcess("/bin/bash", [script], environment: environment)
            #expect(restarted.status == 0)
            // The pool reconnects on its own: ready again within a few tries, same process.
            try await waitUntil("/health/ready answering 200 after PostgreSQL restarted") {
                try await Self.get(ready).0 == 200
            }
        }
    }
}
