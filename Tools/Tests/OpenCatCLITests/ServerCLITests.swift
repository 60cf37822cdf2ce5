import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `opencat server serve` as a person starts it: on SQLite it answers GET /health on the port it prints.
struct ServerCLITests {
    @Test func serveAnswersHealthOnSQLite() async throws {
        let scratch = try ScratchFolder()
        let tokens = try scratch.write("tokens.json", Data(#"{"tok-cli-test-0123456789":"ada"}"#.utf8))
        let process = Process()
        process.executableURL = OpenCatCLI.executable
        process.arguments = [
            "server", "serve", "--port", "0", "--database",
            "sqlite:" + scratch.url.appendingPathComponent("l.sqlite").path,
            "--tokens", tokens,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        // The first line names the bound port.
        var line = ""
        let handle = output.fileHandleForReading
        while !line.contains("\n") {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            line += String(decoding: chunk, as: UTF8.self)
        }
        let port = try #require(
            line.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) }
        )
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/health")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains("\"status\":\"ok\""))
    }

    /// What a new user runs: `opencat server init DIR`, then `serve --config DIR/server.json` on SQLite; both APIs
    /// answer, each with its own credentials, and the files keep no token.
    @Test func initThenServeAnswersTheKeyServerAndTheOpenCatAPI() async throws {
        let scratch = try ScratchFolder()
        let folder = scratch.url.appendingPathComponent("server")
        let initialise = try OpenCatCLI.run(["server", "init", folder.path])
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
        #expect(try OpenCatCLI.run(["server", "init", folder.path]).status != 0)

        let process = Process()
        process.executableURL = OpenCatCLI.executable
        process.arguments = [
            "server", "serve", "--port", "0", "--database",
            "sqlite:" + scratch.url.appendingPathComponent("ledger.sqlite").path,
            "--config", folder.appendingPathComponent("server.json").path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var line = ""
        while !line.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += String(decoding: chunk, as: UTF8.self)
        }
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) })
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
