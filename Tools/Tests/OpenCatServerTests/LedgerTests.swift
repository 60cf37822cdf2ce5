import Foundation
import OpenCatServer
import Testing

extension Backend {
    /// Runs `body` with `count` ledgers on one fresh database: on PostgreSQL each has its own client (as separate
    /// server instances do); SQLite has one process, so its ledgers are the one store. Without
    /// `OPENCAT_TEST_POSTGRES_URL` a PostgreSQL case fails at once, naming the command that provides it.
    func withLedgers<T>(_ count: Int = 2, _ body: ([any LedgerStore]) async throws -> T) async throws -> T {
        try await withStores(count, now: { Date() }) { stores in
            try await body(stores.count == count ? stores : Array(repeating: stores[0], count: count))
        }
    }
}

/// The ledger under concurrency, on SQLite and on PostgreSQL with two instances: balances never go negative, the
/// ledger sums to every balance, an idempotency key applies once, a store transaction is redeemed once across all
/// users.
struct LedgerTests {
    @Test(arguments: Backend.allCases)
    func aThousandConcurrentSpendsAndSharesFromFiftyUsersNeverOverdrawAndTheLedgerSums(backend: Backend)
        async throws
    {
        try await backend.withLedgers { ledgers in
            let users = (0..<50).map { "user-\($0)" }
            for (index, user) in users.enumerated() {
                _ = try await ledgers[index % 2].redeem(
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
                                _ = try await ledgers[spend % 2].transfer(
                                    from: users[spend % users.count],
                                    to: users[(spend + 7) % users.count],
                                    amount: Int64(1 + spend % 2),
                                    kind: "share",
                                    receivedKind: "received",
                                    idempotencyKey: "share-\(spend % 150)"
                                )
                                return 0
                            }
                            let outcome = try await ledgers[spend % 2].spend(
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
                let balance = try await ledgers[1].balance(of: user)
                #expect(balance >= 0)
                let entries = try await ledgers[0].entries(of: user, limit: 1_000)
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

    @Test(arguments: Backend.allCases)
    func anIdempotencyKeyAppliesOnceAndASecondUseForAnotherSpendIsAConflict(backend: Backend) async throws {
        try await backend.withLedgers(1) { ledgers in
            let ledger = ledgers[0]
            _ = try await ledger.redeem(store: "stripe", transactionId: "pi_1", userId: "ada", amount: 10)
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
                    amount: 5,
                    kind: "spend",
                    reference: "echo",
                    app: nil,
                    idempotencyKey: "k1"
                )
            }
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
            await #expect(throws: LedgerError.self) {
                try await ledger.spend(
                    userId: "ada",
                    amount: 0,
                    kind: "spend",
                    reference: nil,
                    app: nil,
                    idempotencyKey: "k3"
                )
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func oneStoreTransactionRedeemedConcurrentlyByAHundredUsersAcrossInstancesMintsOnce(backend: Backend)
        async throws
    {
        try await backend.withLedgers { ledgers in
            let minted = try await withThrowingTaskGroup(of: Int.self) { group in
                for user in 0..<100 {
                    group.addTask {
                        do {
                            _ = try await ledgers[user % 2].redeem(
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
            var total: Int64 = 0
            for user in 0..<100 { total += try await ledgers[1].balance(of: "user-\(user)") }
            #expect(total == 10)
        }
    }
}
