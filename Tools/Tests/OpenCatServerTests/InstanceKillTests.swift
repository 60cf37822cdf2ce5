import Foundation
import HTTPTypes
import OpenCatAsyncHTTPClient
import OpenCatCore
import OpenCatServer
import Synchronization
import Testing
import ToolsTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Two `opencat-server` processes on one PostgreSQL database; one is killed (SIGKILL) while spends are in
/// flight. Every spend it acknowledged is in the ledger; a client retrying the others on the surviving instance
/// with the same idempotency keys gets each applied exactly once. Refunds of a second purchase land during the load
/// (from a third client of the database) and take it back in full.
struct InstanceKillTests {
    static let users = 20
    static let spends = 600
    /// Users 0..<refunded also buy a second pack of 50 keys, refunded while the spends run.
    static let refunded = 5

    static func token(_ user: Int) -> String { "kill-test-token-\(user)-" + String(repeating: "k", count: 20) }

    typealias Outcome = ServerProcess.Outcome

    static func spend(_ index: Int, port: Int, transport: AsyncHTTPClientTransport) async -> Outcome {
        await ServerProcess.spend(
            index,
            user: index % users,
            token: token(index % users),
            key: "kill",
            port: port,
            transport: transport
        )
    }

    @Test func anInstanceKilledMidRequestLosesNothingItAcknowledged() async throws {
        try await ServerTestPostgres.withDatabase(1) { url, stores in
            let ledger = stores[0]
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-kill-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let users = (0..<Self.users).map { ServerUser(userId: "user-\($0)", token: Self.token($0)) }
            try JSONEncoder().encode(users).write(to: folder.appendingPathComponent("users.json"))
            let config = folder.appendingPathComponent("server.json")
            try Data(#"{"usersFile": "users.json"}"#.utf8).write(to: config)
            for user in 0..<Self.users {
                _ = try await ledger.redeem(
                    store: "apple",
                    transactionId: "seed-\(user)",
                    userId: "user-\(user)",
                    amount: 1_000
                )
                if user < Self.refunded {
                    _ = try await ledger.redeem(
                        store: "apple",
                        transactionId: "extra-\(user)",
                        userId: "user-\(user)",
                        amount: 50
                    )
                }
            }
            let arguments = ["--port", "0", "--database", url, "--config", config.path]
            let transport = AsyncHTTPClientTransport()
            let killed = Counter()
            do {
                try await ServerProcess.run(arguments) { _, survivorPort in
                    let (outcomes, victimStatus) = try await ServerProcess.run(arguments) { victim, victimPort in
                        let acknowledgedByVictim = Counter()
                        return await withTaskGroup(of: (Outcome, Bool)?.self) { group in
                            for user in 0..<Self.refunded {
                                group.addTask {
                                    _ = try? await ledger.refund(store: "apple", transactionId: "extra-\(user)")
                                    return nil
                                }
                            }
                            for index in 0..<Self.spends {
                                group.addTask {
                                    let onVictim = index % 2 == 0
                                    let outcome = await Self.spend(
                                        index,
                                        port: onVictim ? victimPort : survivorPort,
                                        transport: transport
                                    )
                                    if onVictim, outcome.entryId != nil,
                                        acknowledgedByVictim.value.add(1, ordering: .relaxed).newValue == 60
                                    {
                                        if (try? victim.send(SIGKILL)) != nil {
                                            killed.value.add(1, ordering: .relaxed)
                                        }
                                    }
                                    return (outcome, onVictim)
                                }
                            }
                            var all: [(Outcome, Bool)] = []
                            for await outcome in group { if let outcome { all.append(outcome) } }
                            return all
                        }
                    }
                    #expect(killed.value.load(ordering: .relaxed) == 1, "the test killed the victim mid-load")
                    #expect(victimStatus == 128 + SIGKILL)
                    let failed = outcomes.filter { $0.0.entryId == nil }
                    #expect(!failed.isEmpty, "the kill interrupted some spends")
                    // Everything acknowledged, by either instance, is in the ledger.
                    var entries: [String: LedgerEntry] = [:]
                    for user in 0..<Self.users {
                        for entry in try await ledger.entries(of: "user-\(user)", limit: 1_000) {
                            entries[entry.id] = entry
                        }
                    }
                    for (outcome, _) in outcomes {
                        guard let id = outcome.entryId else { continue }
                        #expect(entries[id]?.userId == "user-\(outcome.index % Self.users)")
                    }
                    // The client retries what was not acknowledged on the surviving instance: each key applies once.
                    for (outcome, _) in failed {
                        let retried = await Self.spend(outcome.index, port: survivorPort, transport: transport)
                        #expect(retried.entryId != nil)
                    }
                }
            } catch {
                try? await transport.shutdown()
                throw error
            }
            try await transport.shutdown()
            for user in 0..<Self.users {
                let spent = try await ledger.entries(of: "user-\(user)", limit: 1_000).filter { $0.kind == "spend" }
                #expect(spent.count == Self.spends / Self.users)
                // A refunded second purchase is taken back whole, whatever the spends around it.
                #expect(try await ledger.balance(of: "user-\(user)") == 1_000 - Int64(Self.spends / Self.users))
                if user < Self.refunded {
                    let refunds = try await ledger.entries(of: "user-\(user)", limit: 1_000).filter {
                        $0.kind == "refund"
                    }
                    #expect(refunds.map(\.amount) == [-50])
                }
            }
        }
    }
}

/// `opencat-server` run as a person runs it, in a child process: the port it prints, its signals, its exit status.
enum ServerProcess {
    /// One spend of a load: its index and the ledger entry the server acknowledged (nil: not acknowledged).
    struct Outcome: Sendable {
        var index: Int
        var entryId: String?
    }

    /// `POST /api/v1/wallet/spend` of one key for `user-<user>`, with the idempotency key `<key>-<index>`.
    static func spend(
        _ index: Int,
        user: Int,
        token: String,
        key: String,
        port: Int,
        transport: AsyncHTTPClientTransport
    ) async -> Outcome {
        var request = HTTPRequest(
            method: .post,
            scheme: "http",
            authority: "127.0.0.1:\(port)",
            path: "/api/v1/wallet/spend"
        )
        request.headerFields[.authorization] = "Bearer \(token)"
        request.headerFields[.contentType] = "application/json"
        request.headerFields[HTTPField.Name("Idempotency-Key")!] = "\(key)-\(index)"
        let body = Data(#"{"amount":1,"feature":"f","app":"a","userId":"user-\#(user)"}"#.utf8)
        guard let response = try? await transport.send(request, body: body), response.head.status == .ok,
            let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        else { return Outcome(index: index, entryId: nil) }
        return Outcome(index: index, entryId: object["transactionId"] as? String)
    }

    /// The executable built next to the test bundle.
    static var executable: URL { TestEnvironment.builtProduct("opencat-server") }

    /// Starts `opencat-server` with `arguments` and runs `body` with it and its port (see `withServerProcess`).
    @discardableResult
    static func run<T: Sendable>(
        _ arguments: [String],
        environment: [String: String?] = [:],
        standardError: URL? = nil,
        _ body: (ChildProcess, Int) async throws -> T
    ) async throws -> (value: T, status: Int32) {
        try await withServerProcess(
            executable.path,
            arguments,
            environment: environment,
            standardError: standardError,
            body
        )
    }
}

/// A shared count.
final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
