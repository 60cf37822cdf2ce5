import Foundation
import OpenCatServer
import Testing

/// The ledger on SQLite under concurrency: balances never go negative, the ledger sums to every balance, an
/// idempotency key applies once, a store transaction is redeemed once across all users.
struct LedgerTests {
    func store() throws -> (SQLiteLedgerStore, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-ledger-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (try SQLiteLedgerStore(fileURL: folder.appendingPathComponent("ledger.sqlite")), folder)
    }

    @Test func aThousandConcurrentSpendsFromFiftyUsersNeverOverdraw() async throws {
        let (ledger, folder) = try store()
        defer { try? FileManager.default.removeItem(at: folder) }
        let users = (0..<50).map { "user-\($0)" }
        for (index, user) in users.enumerated() {
            _ = try await ledger.redeem(
                store: "apple",
                transactionId: "tx-\(index)",
                userId: user,
                amount: 10
            )
        }
        let accepted = try await withThrowingTaskGroup(of: Int64.self) { group in
            for spend in 0..<1_000 {
                group.addTask {
                    let user = users[spend % users.count]
                    do {
                        let outcome = try await ledger.spend(
                            userId: user,
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
        for user in users {
            let balance = try await ledger.balance(of: user)
            #expect(balance >= 0)
            let entries = try await ledger.entries(of: user, limit: 1_000)
            #expect(entries.reduce(0) { $0 + $1.amount } == balance)
            sum += balance
        }
        #expect(sum == 500 + accepted)
        #expect(accepted < 0)
    }

    @Test func anIdempotencyKeyAppliesOnceAndASecondUseForAnotherSpendIsAConflict() async throws {
        let (ledger, folder) = try store()
        defer { try? FileManager.default.removeItem(at: folder) }
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

    @Test func oneStoreTransactionRedeemedConcurrentlyByAHundredUsersMintsOnce() async throws {
        let (ledger, folder) = try store()
        defer { try? FileManager.default.removeItem(at: folder) }
        let minted = try await withThrowingTaskGroup(of: Int.self) { group in
            for user in 0..<100 {
                group.addTask {
                    do {
                        _ = try await ledger.redeem(
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
        for user in 0..<100 { total += try await ledger.balance(of: "user-\(user)") }
        #expect(total == 10)
    }
}
