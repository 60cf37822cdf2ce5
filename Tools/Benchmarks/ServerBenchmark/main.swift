// ServerBenchmark: the reference server on loopback. Purchases: App Store signed transactions (each a new
// transaction, signed before the clock starts) posted to POST /api/v1/keys/purchase/apple, verified by
// StoreAdapters (ES256 + x5c chain), redeemed in the ledger with two Ed25519 licenses minted. Spends: POST
// /api/v1/wallet/spend from 50 users, each with its own idempotency key. Both on SQLite and, with --postgres, on a
// fresh PostgreSQL database. Load comes from the same process (AsyncHTTPClient, --connections concurrent
// requests), so server and client share the machine's cores.
// Run: swift run -c release ServerBenchmark [--requests 4000] [--connections 16] [--postgres URL]
//      [--write docs/BENCHMARKS.md]
import Crypto
import Foundation
import HTTPTypes
import KeyServerClient
import Logging
import OpenCatAsyncHTTPClient
import OpenCatCore
import OpenCatServer
import OpenCatServerPostgres
import OpenCatTesting
import PostgresNIO
import StoreAdapters

let arguments = CommandLine.arguments
func value(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}
let requests = value("--requests").flatMap(Int.init) ?? 4_000
let connections = value("--connections").flatMap(Int.init) ?? 16
let postgresURL = value("--postgres")
let reportPath = value("--write")

let logger = Logger(label: "bench.server", factory: { _ in SwiftLogNoOpLogHandler() })
let ca = try MockAppleCA()
let bundleId = "dev.opencat.bench"
let pack = "dev.opencat.bench.keys"
let signedDate = Date().addingTimeInterval(-60)
let users = (0..<50).map {
    ServerUser(userId: "user-\($0)", email: "user\($0)@example.com", token: "bench-token-\($0)")
}

struct Measurement {
    var name: String
    var count: Int
    var failures: Int
    var seconds: Double
    var latencies: [Double]

    var perSecond: Double { Double(count) / seconds }
    func percentile(_ p: Double) -> Double {
        let sorted = latencies.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)] * 1_000
    }
}

/// Sends `bodies` with `connections` in flight; each request's latency recorded.
func load(
    _ name: String,
    port: Int,
    path: String,
    bodies: [(user: Int, body: Data, key: String)],
    transport: AsyncHTTPClientTransport
) async -> Measurement {
    let start = ContinuousClock.now
    let results = await withTaskGroup(of: [(Double, Bool)].self) { group in
        for lane in 0..<connections {
            group.addTask {
                var laneResults: [(Double, Bool)] = []
                var index = lane
                while index < bodies.count {
                    let item = bodies[index]
                    var request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:\(port)", path: path)
                    request.headerFields[.authorization] = "Bearer bench-token-\(item.user)"
                    request.headerFields[.contentType] = "application/json"
                    request.headerFields[HTTPField.Name("Idempotency-Key")!] = item.key
                    let began = ContinuousClock.now
                    let response = try? await transport.send(request, body: item.body)
                    let elapsed = began.duration(to: .now)
                    laneResults.append(
                        (
                            Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                            response?.head.status == .ok
                        )
                    )
                    index += connections
                }
                return laneResults
            }
        }
        var all: [(Double, Bool)] = []
        for await lane in group { all += lane }
        return all
    }
    let total = start.duration(to: .now)
    return Measurement(
        name: name,
        count: results.count,
        failures: results.filter { !$0.1 }.count,
        seconds: Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18,
        latencies: results.map(\.0)
    )
}

func run(_ database: String, ledger: any LedgerStore) async throws -> [Measurement] {
    let keyring = try LicenseKeyring(
        issuers: [LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "bench")],
        activeKid: "bench"
    )
    let apple = AppleStoreAdapter(
        configuration: .init(bundleId: bundleId, rootCertificates: [ca.rootCertificate], validationTime: .signedDate)
    )
    var settings = ServerSettings(
        users: BearerTokens(users: users),
        keyPacks: [pack: KeyPack(keys: 10, bonusKeys: 1, communityKeys: 1, plan: "L1", licenses: 2)],
        keyring: keyring
    )
    // The benchmark measures the purchase path, not the per-user limit on store calls (30 a minute by default,
    // which refuses most of 80 purchases per user with 429).
    settings.storeRateLimit = RateLimit(requests: 1_000_000, seconds: 1)
    let server = OpenCatServerApplication(
        ledger: ledger,
        settings: settings,
        adapters: [apple],
        databaseKind: database,
        logger: logger
    )
    let runID = UUID().uuidString.prefix(8)
    // Signed before the clock starts: the benchmark measures the server, not the signing.
    let purchases = try (0..<requests).map { index -> (user: Int, body: Data, key: String) in
        let payload = JWSTransactionDecodedPayload(
            originalTransactionId: "\(runID)-\(index)",
            transactionId: "\(runID)-\(index)",
            bundleId: bundleId,
            productId: pack,
            purchaseDate: signedDate,
            originalPurchaseDate: signedDate,
            quantity: 1,
            rawType: "Consumable",
            rawInAppOwnershipType: "PURCHASED",
            signedDate: signedDate,
            rawEnvironment: "Production"
        )
        let body = try JSONSerialization.data(withJSONObject: [
            "transaction": try ca.signJWS(payload), "userEmail": "user\(index % 50)@example.com",
        ])
        return (index % 50, body, "purchase-\(runID)-\(index)")
    }
    let spends = (0..<requests).map { index -> (user: Int, body: Data, key: String) in
        let body = Data(#"{"amount":1,"feature":"tts","app":"bench","userId":"user-\#(index % 50)"}"#.utf8)
        return (index % 50, body, "spend-\(runID)-\(index)")
    }
    let transport = AsyncHTTPClientTransport()
    return try await withThrowingTaskGroup(of: Void.self) { group in
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        group.addTask { try await server.run(port: 0) { continuation.yield($0) } }
        var port = 0
        for await bound in ports {
            port = bound
            break
        }
        let purchase = await load(
            "purchases (Apple JWS), \(database)",
            port: port,
            path: "/api/v1/keys/purchase/apple",
            bodies: purchases,
            transport: transport
        )
        let spend = await load(
            "spends, \(database)",
            port: port,
            path: "/api/v1/wallet/spend",
            bodies: spends,
            transport: transport
        )
        try await transport.shutdown()
        group.cancelAll()
        return [purchase, spend]
    }
}

var measurements: [Measurement] = []
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("server-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
measurements += try await run(
    "SQLite",
    ledger: try SQLiteLedgerStore(fileURL: folder.appendingPathComponent("l.sqlite"))
)
try? FileManager.default.removeItem(at: folder)

if let postgresURL {
    let admin = try PostgresLedgerStore.client(url: postgresURL, logger: logger)
    let name = "bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    measurements += try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await admin.run() }
        defer { group.cancelAll() }
        try await admin.query("CREATE DATABASE \(unescaped: name)", logger: logger)
        var components = URLComponents(string: postgresURL)!
        components.path = "/" + name
        let client = try PostgresLedgerStore.client(url: components.string!, logger: logger)
        group.addTask { await client.run() }
        let ledger = PostgresLedgerStore(client: client, logger: logger)
        try await ledger.migrate()
        return try await run("PostgreSQL", ledger: ledger)
    }
}

var table = "| measurement | requests/s | p50 | p99 | failed |\n|---|---:|---:|---:|---:|\n"
for measurement in measurements {
    table += String(
        format: "| %@ | %.0f | %.2f ms | %.2f ms | %d of %d |\n",
        measurement.name,
        measurement.perSecond,
        measurement.percentile(0.50),
        measurement.percentile(0.99),
        measurement.failures,
        measurement.count
    )
}
print(table)

if let reportPath {
    var text = (try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? "# Benchmarks\n"
    let section = """
        ## Reference server (OpenCatServer)

        Command: `swift run -c release ServerBenchmark --requests \(requests) --connections \(connections)\
        \(postgresURL == nil ? "" : " --postgres postgres://…") --write docs/BENCHMARKS.md` (run on \
        \(ISO8601DateFormatter().string(from: Date())), Swift 6.3.1, Linux x86_64, release build, 2 cores shared by \
        the server and its load). Purchases: a new App Store signed transaction each, posted to \
        `POST /api/v1/keys/purchase/apple`, verified by StoreAdapters (ES256 with the x5c chain to the root), redeemed \
        once in the ledger with two Ed25519 licenses minted and stored. Spends: `POST /api/v1/wallet/spend` from 50 \
        users, each with its own idempotency key (balance check and entry in one transaction). \(connections) requests \
        in flight from an AsyncHTTPClient in the same process; PostgreSQL 15 on loopback (the URL `bash Tools/ci/start-postgres.sh` prints), a fresh database.

        \(table)
        """
    if let start = text.range(of: "## Reference server (OpenCatServer)") {
        let end = text[start.upperBound...].range(of: "\n## ")?.lowerBound ?? text.endIndex
        text.replaceSubrange(start.lowerBound..<end, with: section)
    } else {
        text += "\n" + section
    }
    try text.write(toFile: reportPath, atomically: true, encoding: .utf8)
}
