import Foundation
import Testing
import ToolsTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `opencat-server` as a person starts it: on SQLite it answers GET /health on the port it prints.
struct ServerCLITests {
    /// Starts `opencat-server` with `arguments`, runs `body` with the port it printed, then ends it.
    static func withServer<T: Sendable>(_ arguments: [String], _ body: (Int) async throws -> T) async throws -> T {
        try await withServerProcess(OpenCatCLI.server.path, arguments) { _, port in try await body(port) }.value
    }

    @Test func serveAnswersHealthOnSQLite() async throws {
        let scratch = try ScratchFolder()
        let tokens = try scratch.write("tokens.json", Data(#"{"tok-cli-test-0123456789":"ada"}"#.utf8))
        try await Self.withServer([
            "--port", "0", "--database", "sqlite:" + scratch.url.appendingPathComponent("l.sqlite").path,
            "--tokens", tokens,
        ]) { port in
            let (data, response) = try await URLSession.shared.data(
                from: URL(string: "http://127.0.0.1:\(port)/health")!
            )
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self).contains("\"status\":\"ok\""))
        }
    }

    /// Every default `--help` names is the one the server uses: `serve --help` prints ArgumentParser's defaults (the
    /// properties' own values), and the overview names no other.
    @Test func theDefaultsTheHelpNamesAreTheRealOnes() async throws {
        let serve = try await OpenCatCLI.run(["serve", "--help"], executable: OpenCatCLI.server)
        #expect(serve.status == 0)
        let help = serve.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for value in ["127.0.0.1", "8080", "sqlite:opencat-server.sqlite"] {
            #expect(help.contains("(default: \(value))"), "serve --help names \(value) as a default")
        }
        let overview = try await OpenCatCLI.run(["--help"], executable: OpenCatCLI.server).standardOutput
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(overview.contains("127.0.0.1:8080"))
        #expect(overview.contains("sqlite:opencat-server.sqlite"))
        for wrong in ["sqlite:ledger.sqlite", "--host 0.0.0.0 --port 8080 --database"] {
            #expect(!overview.contains(wrong), "the overview names \(wrong)")
        }
    }

    /// `add-user` writes a user with a fresh token (printed once, hashed in the file) and refuses a duplicate.
    @Test func addUserAppendsAUserWithATokenShownOnce() async throws {
        let scratch = try ScratchFolder()
        let users = scratch.url.appendingPathComponent("users.json").path
        let first = try await OpenCatCLI.run(
            ["add-user", "--users", users, "--user-id", "ada", "--email", "ada@example.com"],
            executable: OpenCatCLI.server
        )
        #expect(first.status == 0)
        let token = try #require(
            first.standardOutput.split(separator: "\n").first { $0.contains("bearer token") }?.split(separator: " ")
                .last
        )
        let text = try String(contentsOfFile: users, encoding: .utf8)
        #expect(text.contains("\"ada\"") && !text.contains(String(token)))
        let again = try await OpenCatCLI.run(
            ["add-user", "--users", users, "--user-id", "ada"],
            executable: OpenCatCLI.server
        )
        #expect(again.status != 0)
        #expect(again.standardError.contains("already"))
        #expect(try String(contentsOfFile: users, encoding: .utf8) == text)
        // An address is checked as the portal checks it (a mailbox's shape), never only for an "@".
        for bad in ["@", "bo@", "@example.com", "bo@example"] {
            let refused = try await OpenCatCLI.run(
                ["add-user", "--users", users, "--user-id", "bo", "--email", bad],
                executable: OpenCatCLI.server
            )
            #expect(refused.status != 0 && refused.standardError.contains("not an email address"), "\(bad)")
        }
        #expect(try String(contentsOfFile: users, encoding: .utf8) == text)
    }

    /// What a new user runs: `opencat-server init DIR`, then `opencat-server --config DIR/server.json` on SQLite; both APIs
    /// answer, each with its own credentials, and the files keep no token.
    @Test func initThenServeAnswersTheKeyServerAndTheOpenCatAPI() async throws {
        let scratch = try ScratchFolder()
        let folder = scratch.url.appendingPathComponent("server")
        let initialise = try await OpenCatCLI.run(["init", folder.path], executable: OpenCatCLI.server)
        #expect(initialise.status == 0)
        func value(after label: String) -> String? {
            initialise.standardOutput.split(separator: "\n").first { $0.contains(label) }.flatMap {
                $0.split(separator: " ").last
            }
            .map(String.init)
        }
        let token = try #require(value(after: "bearer token"))
        let apiKey = try #require(value(after: "OpenCat API key"))
        for file in ["server.json", "users.json"] {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains(token) && !text.contains(apiKey))
        }
        #expect(try await OpenCatCLI.run(["init", folder.path], executable: OpenCatCLI.server).status != 0)

        try await Self.withServer([
            "--port", "0", "--database", "sqlite:" + scratch.url.appendingPathComponent("ledger.sqlite").path,
            "--config", folder.appendingPathComponent("server.json").path,
        ]) { port in
            func get(_ path: String, _ credential: String?) async throws -> (Int, String) {
                var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
                if let credential { request.setValue("Bearer \(credential)", forHTTPHeaderField: "Authorization") }
                let (data, response) = try await URLSession.shared.data(for: request)
                return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
            }
            #expect(try await get("/health", nil).0 == 200)
            let wallet = try await get("/api/v1/wallet/demo-user", token)
            #expect(wallet.0 == 200)
            #expect(wallet.1.contains("\"balance\":0"))
            #expect(try await get("/api/v1/wallet/demo-user", apiKey).0 == 401)
            #expect(try await get("/api/v1/apps/example-app/features", token).1.contains("pro-voices"))
            #expect(try await get("/v1/offerings?appUserId=demo-user", apiKey).0 == 200)
            let subscriber = try await get("/v1/subscribers/demo-user", apiKey)
            #expect(subscriber.0 == 200)
            #expect(subscriber.1.contains("\"appUserId\":\"demo-user\""))
            #expect(try await get("/v1/subscribers/demo-user", token).0 == 401)
        }
    }
}

/// What the server's README walks a new user through: `opencat-server init --demo`, `opencat mock serve` with the
/// demo's Stripe key, the server on SQLite; a pack bought with the recorded PaymentIntent, a spend, a share to the
/// friend, and key sync, with the tokens `init` printed.
struct ServerDemoTests {
    /// Points the configuration's Stripe at the mock's port (what `init --demo --mock-port` writes).
    static func pointStripe(at port: Int, in file: URL) throws {
        var config = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var stores = config["stores"] as? [String: Any] ?? [:]
        var stripe = try #require(stores["stripe"] as? [String: Any])
        #expect(stripe["baseURL"] as? String == "http://127.0.0.1:9")
        stripe["baseURL"] = "http://127.0.0.1:\(port)"
        stores["stripe"] = stripe
        config["stores"] = stores
        try JSONSerialization.data(withJSONObject: config, options: [.sortedKeys]).write(to: file)
    }

    static func call(_ url: String, token: String, body: String? = nil, key: String? = nil) async throws -> (
        Int, String
    ) {
        var request = URLRequest(url: URL(string: url)!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpMethod = "POST"
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let key { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func theDemoBuysSpendsSharesAndSyncsAgainstTheMockStores() async throws {
        let scratch = try ScratchFolder()
        let folder = scratch.url.appendingPathComponent("demo")
        // The mock listens on a port of its own choosing (a port found free and then bound by another process
        // loses a race with the ~800 tests running beside this one); the configuration is pointed at it after.
        let initialise = try await OpenCatCLI.run(
            ["init", "--demo", folder.path, "--mock-port", "9"],
            executable: OpenCatCLI.server
        )
        #expect(initialise.status == 0, "\(initialise.standardError)")
        func token(_ who: String) throws -> String {
            try #require(
                initialise.standardOutput.split(separator: "\n").first { $0.hasPrefix("\(who) bearer token") }?
                    .split(separator: " ").last.map(String.init)
            )
        }
        let buyer = try token("player-42")
        let friend = try token("friend")
        let repository = TestEnvironment.repositoryRoot.path
        try await withServerProcess(
            OpenCatCLI.executable.path,
            [
                "mock", "serve", "--root", repository, "--port", "0", "--store", "stripe", "--scenario",
                "one-time-paid", "--secrets", folder.appendingPathComponent("mock-secrets.json").path, "--repeat",
                "--checkout",
            ],
            banner: "MockStores listening"
        ) { _, mockPort in
            try Self.pointStripe(at: mockPort, in: folder.appendingPathComponent("server.json"))
            try await ServerCLITests.withServer([
                "--port", "0", "--config", folder.appendingPathComponent("server.json").path, "--database",
                "sqlite:" + folder.appendingPathComponent("ledger.sqlite").path,
            ]) { port in
                let base = "http://127.0.0.1:\(port)"
                let purchase = #"{"paymentIntentId":"pi_3OpenCatPaid001","productId":"gems_500"}"#
                let bought = try await Self.call(base + "/api/v1/keys/purchase/stripe", token: buyer, body: purchase)
                #expect(bought.0 == 200, "\(bought.1)")
                #expect(bought.1.contains("\"keysAdded\":10"))
                #expect(
                    try await Self.call(base + "/api/v1/wallet/player-42", token: buyer).1.contains("\"balance\":11")
                )
                // What the README says of a retry, another user and a forged id.
                let again = try await Self.call(base + "/api/v1/keys/purchase/stripe", token: buyer, body: purchase)
                #expect(again.0 == 200 && again.1.contains("\"transactionId\":\"pi_3OpenCatPaid001\""), "\(again.1)")
                let other = try await Self.call(base + "/api/v1/keys/purchase/stripe", token: friend, body: purchase)
                #expect(other.0 == 409 && other.1.contains("already_redeemed"), "\(other.1)")
                #expect(!other.1.contains("VUUW") && !other.1.contains("keysAdded"), "\(other.1)")
                let forged = #"{"paymentIntentId":"pi_forged","productId":"gems_500"}"#
                let refused = try await Self.call(base + "/api/v1/keys/purchase/stripe", token: buyer, body: forged)
                #expect(refused.0 == 422 && refused.1.contains("\"reason\""), "\(refused.1)")
                #expect(
                    try await Self.call(base + "/api/v1/wallet/player-42", token: buyer).1.contains("\"balance\":11")
                )
                let spend = #"{"amount":2,"feature":"pro-voices","app":"example-app","userId":"player-42"}"#
                let spent = try await Self.call(base + "/api/v1/wallet/spend", token: buyer, body: spend, key: "s-1")
                #expect(spent.1.contains("\"remainingBalance\":9"))
                let share = #"{"amount":3,"recipientEmail":"friend@example.com","userId":"player-42"}"#
                #expect(
                    try await Self.call(base + "/api/v1/community/share", token: buyer, body: share, key: "h-1").0
                        == 200
                )
                #expect(try await Self.call(base + "/api/v1/wallet/friend", token: friend).1.contains("\"balance\":3"))
                let synced = try await Self.call(base + "/api/v1/keys/email/demo@example.com", token: buyer)
                #expect(synced.0 == 200)
                #expect(synced.1.contains("VUUW-"))
            }
        }
    }
}
