// LLMKeysBenchmark: `GET /api/api-key-status` for a Starter user with stored keys, on SQLite, served by the
// Hummingbird responder on 127.0.0.1 and loaded by wrk (Debian's `wrk`) from another process.
// Run: swift run -c release LLMKeysBenchmark [--seconds 10] [--connections 32]
import Crypto
import Foundation
import Hummingbird
import LLMKeyResolver
import LLMKeyResolverHTTP
import Logging
import OpenCatCore
import Subprocess

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Int) -> Int {
    arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil }
        ?? fallback
}
let seconds = option("--seconds", 10)
let connections = option("--connections", 32)

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("llmkeys-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let cipher = try LLMKeyCipher(masterKeys: ["k1": SymmetricKey(size: .bits256)], primaryKeyId: "k1")
let vault = UserKeyVault(
    store: try SQLiteLLMKeyStore(fileURL: folder.appendingPathComponent("keys.sqlite")),
    cipher: cipher
)
try await vault.update(
    userId: "starter-1",
    [
        .openai: "sk-proj-BENCHabcdefghijklmnopqrstuv123456",
        .anthropic: "sk-ant-api03-BENCHabcdefghijklmnopqrstuvwxyz0123456",
    ]
)
let authenticator = try HS256JWTAuthenticator(secret: "benchmark-secret-of-at-least-32-bytes")
let token = authenticator.token(user: "starter-1", tier: .starter, expiresAt: Date().addingTimeInterval(3600))
var logger = Logger(label: "bench")
logger.logLevel = .error
let api = LLMKeysAPI(
    resolver: LLMKeyResolver(systemKeys: [:], vault: vault),
    authenticator: authenticator,
    logger: logger
)

let (ports, portContinuation) = AsyncStream<Int>.makeStream()
let app = api.application(port: 0) { portContinuation.yield($0) }
let server = Task { try await app.runService() }
func firstPort(_ ports: AsyncStream<Int>) async -> Int? {
    for await port in ports { return port }
    return nil
}
guard let port = await firstPort(ports) else { fatalError("the server did not start") }

// A warm-up, then the measured run. /usr/bin/wrk runs through swift-subprocess (an asynchronous wait), by way of
// env so that no FilePath is needed here; its standard error goes to ours, as before.
@MainActor func wrk(_ duration: Int) async throws -> String {
    let result = try await Subprocess.run(
        .name("env"),
        arguments: Arguments([
            "/usr/bin/wrk", "-t2", "-c\(connections)", "-d\(duration)s", "--latency",
            "-H", "Authorization: Bearer \(token)", "http://127.0.0.1:\(port)/api/api-key-status",
        ]),
        output: .string(limit: 1 << 20),
        error: .currentStandardError
    )
    return result.standardOutput
}
guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else {
    print("install wrk (apt-get install wrk) to run this benchmark")
    exit(1)
}
_ = try await wrk(2)
let report = try await wrk(seconds)
server.cancel()

func value(after label: String) -> String {
    report.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }
        .map {
            $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst(label.split(separator: " ").count).first
                .map(String.init) ?? "?"
        } ?? "?"
}
let errors = report.contains("Non-2xx") ? "non-2xx answers!" : "all 200"
print(report)
print("GET /api/api-key-status, Starter user with 2 stored keys, SQLite, \(connections) connections, \(seconds) s:")
print(
    "  requests/s: \(value(after: "Requests/sec:"))   p50: \(value(after: "50%"))   p99: \(value(after: "99%"))   (\(errors))"
)
