import Foundation
import Logging
import OpenCatServer
import OpenCatServerPostgres
import PostgresNIO
import Testing
import ToolsTestSupport

/// The tests' PostgreSQL (`OPENCAT_TEST_POSTGRES_URL`, set by `bash Tools/test.sh`, which installs and starts it on
/// loopback); each test gets a database of its own. Without it these tests fail at once, naming the command.
enum ServerTestPostgres {
    static let url: Result<String, any Error> = Result { try TestEnvironment.postgresURL() }

    static let logger = Logger(label: "tests.ledger.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A fresh database and `count` stores on it, each with its own client (as separate server instances are).
    static func withStores<T>(
        _ count: Int,
        now: @escaping @Sendable () -> Date = { Date() },
        _ body: ([PostgresLedgerStore]) async throws -> T
    ) async throws -> T {
        try await withDatabase(count, now: now) { _, stores in try await body(stores) }
    }

    /// A fresh database (its URL, for other processes) and `count` stores on it.
    static func withDatabase<T>(
        _ count: Int,
        now: @escaping @Sendable () -> Date = { Date() },
        _ body: (String, [PostgresLedgerStore]) async throws -> T
    ) async throws -> T {
        let base = try url.get()
        let name = "ledger_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresLedgerStore.client(url: base, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await admin.run() }
            defer { group.cancelAll() }
            try await admin.query("CREATE DATABASE \(unescaped: name)", logger: logger)
            var components = URLComponents(string: base)!
            components.path = "/" + name
            let clients = try (0..<count).map { _ in
                try PostgresLedgerStore.client(url: components.string!, logger: logger)
            }
            for client in clients { group.addTask { await client.run() } }
            let stores = clients.map { PostgresLedgerStore(client: $0, logger: logger, now: now) }
            try await stores[0].migrate()
            return try await body(components.string!, stores)
        }
    }
}

struct PostgresLedgerTests {
    @Test func twoInstancesSpendingAndSharingConcurrentlyNeverOverdrawAndTheLedgerSums() async throws {
        try await ServerTestPostgres.withStores(2) { stores in
            let users = (0..<50).map { "user-\($0)" }
            for (index, user) in users.enumerated() {
                _ = try await stores[index % 2].redeem(
                    store: "apple",
                    transactionId: "tx-\(index)",
                    userId: user,
                    amount: 10
                )
            }
            let spent = try await withThrowingTaskGroup(of: Int64.self) { group in
                for spend in 0..<1_000 {
                    group.addTask {
                        do {
                            // Every fifth operation shares keys with another user: a move, the total unchanged.
                            if spend % 5 == 0 {
                                _ = try await stores[spend % 2].transfer(
                                    from: users[spend % users.count],
                                    to: users[(spend + 7) % users.count],
                                    amount: Int64(1 + spend % 2),
                                    kind: "share",
                                    receivedKind: "received",
                                    idempotencyKey: "share-\(spend % 150)"
                                )
                                return 0
                            }
                            let outcome = try await stores[spend % 2].spend(
                                userId: users[spend % users.count],
                                amount: Int64(1 + spend % 3),
                                kind: "spend",
                                reference: "feature",
                                app: "voiceuwu",
                                idempotencyKey: "spend-\(spend % 700)"
                            )
                            return outcome.replayed ? 0 : outcome.entry.amount
                        } catch let error as LedgerError
                            where error.code == .insufficientBalance || error.code == .idempotencyConflict
                        {
                            return 0
                        }
                    }
                }
                var total: Int64 = 0
                for try await amount in group { total += amount }
                return total
            }
            var sum: Int64 = 0
            var shares = 0
            var receipts = 0
            for user in users {
                let balance = try await stores[1].balance(of: user)
                #expect(balance >= 0)
                let entries = try await stores[0].entries(of: user, limit: 1_000)
                #expect(entries.reduce(0) { $0 + $1.amount } == balance)
                shares += entries.filter { $0.kind == "share" }.count
                receipts += entries.filter { $0.kind == "received" }.count
                sum += balance
            }
            #expect(sum == 500 + spent && spent < 0)
            // Each share applied once (150 distinct keys at most), each with exactly one receipt.
            #expect(shares == receipts && shares > 0 && shares <= 150)
        }
    }

    @Test func oneTransactionRedeemedAHundredTimesAcrossInstancesMintsOnce() async throws {
        try await ServerTestPostgres.withStores(2) { stores in
            let minted = try await withThrowingTaskGroup(of: Int.self) { group in
                for user in 0..<100 {
                    group.addTask {
                        do {
                            _ = try await stores[user % 2].redeem(
                                store: "apple",
                                transactionId: "2000000000000001",
                                userId: "user-\(user)",
                                amount: 10
                            )
                            return 1
                        } catch let error as LedgerError where error.code == .alreadyRedeemed {
                            return 0
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(minted == 1)
        }
    }

    @Test func idempotencyKeysApplyOnceOnPostgreSQLToo() async throws {
        try await ServerTestPostgres.withStores(1) { stores in
            let ledger = stores[0]
            _ = try await ledger.redeem(
                store: "stripe",
                transactionId: "pi_1",
                userId: "ada",
                amount: 10
            )
            let first = try await ledger.spend(
                userId: "ada",
                amount: 4,
                kind: "spend",
                reference: "echo",
                app: nil,
                idempotencyKey: "k1"
            )
            let again = try await ledger.spend(
                userId: "ada",
                amount: 4,
                kind: "spend",
                reference: "echo",
                app: nil,
                idempotencyKey: "k1"
            )
            #expect(!first.replayed && again.replayed && again.entry.id == first.entry.id)
            #expect(try await ledger.balance(of: "ada") == 6)
            await #expect(throws: LedgerError.self) {
                try await ledger.spend(
                    userId: "ada",
                    amount: 7,
                    kind: "spend",
                    reference: "echo",
                    app: nil,
                    idempotencyKey: "k2"
                )
            }
        }
    }
}
