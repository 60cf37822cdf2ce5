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
}
