import Foundation
import OpenCatCore
import OpenCatServer
import Testing

/// A wallet's history can be followed while it changes, and one store transaction is redeemed by one API only.
struct LedgerHistoryFollowTests {
    /// How long the writers run while the follower pages: 30 s on PostgreSQL (where commits can come out of order),
    /// 10 s on SQLite (one writer).
    static func seconds(_ backend: Backend) -> Double { backend == .postgresql ? 30 : 10 }
    /// The fewest changes each writer makes (each adds one entry to the followed wallet).
    static let minimumSteps = 10

    /// Eight writers spend from and share into one wallet on two PostgreSQL instances (and on SQLite) for 30 s while
    /// a follower pages through its history from cursor to cursor: the follower sees every entry exactly once, in
    /// the order of the final history.
    @Test(arguments: Backend.allCases)
    func aFollowerPagingAWalletWhileEightWritersChangeItSeesEveryEntryOnce(backend: Backend) async throws {
        try await backend.withLedgers(2) { ledgers in
            let wallet = "followed"
            let writers = (0..<8).map { "writer-\($0)" }
            _ = try await ledgers[0].redeem(
                store: "stripe",
                transactionId: "pi_wallet",
                userId: wallet,
                amount: 1_000_000
            )
            for (index, writer) in writers.enumerated() {
                _ = try await ledgers[index % 2].redeem(
                    store: "stripe",
                    transactionId: "pi_\(writer)",
                    userId: writer,
                    amount: 1_000_000
                )
            }
            let deadline = ContinuousClock.now.advanced(by: .seconds(Self.seconds(backend)))
            var seen: [String] = []
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, writer) in writers.enumerated() {
                    group.addTask {
                        var step = 0
                        // For the time given, and at least `minimumSteps` each however slow the machine is.
                        while ContinuousClock.now < deadline || step < Self.minimumSteps {
                            step += 1
                            let ledger = ledgers[(index + step) % 2]
                            if step.isMultiple(of: 2) {
                                _ = try await ledger.transfer(
                                    from: writer,
                                    to: wallet,
                                    amount: 1,
                                    kind: "share",
                                    receivedKind: "received",
                                    idempotencyKey: "\(writer)-\(step)"
                                )
                            } else {
                                _ = try await ledger.spend(
                                    userId: wallet,
                                    amount: 1,
                                    kind: "spend",
                                    reference: writer,
                                    app: nil,
                                    idempotencyKey: "\(writer)-\(step)"
                                )
                            }
                        }
                    }
                }
                var cursor: Int64?
                var reads = 0
                while ContinuousClock.now < deadline {
                    reads += 1
                    let page = try await ledgers[reads % 2].follow(wallet, after: cursor, limit: 50)
                    seen += page.entries.map(\.id)
                    cursor = page.cursor
                }
                try await group.waitForAll()
                while true {
                    let page = try await ledgers[0].follow(wallet, after: cursor, limit: 1_000)
                    guard !page.entries.isEmpty else { break }
                    seen += page.entries.map(\.id)
                    cursor = page.cursor
                }
            }
            var all: [String] = []
            var cursor: Int64?
            repeat {
                let page = try await ledgers[1].history(of: wallet, after: cursor, limit: 1_000)
                all += page.entries.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            // Counted, not listed: thousands of ids would drown the failure.
            let missed = Set(all).subtracting(seen).count
            let seenTwice = seen.count - Set(seen).count
            let inOrder = seen == all
            #expect(all.count > writers.count * Self.minimumSteps)
            #expect(missed == 0 && seenTwice == 0, "of \(all.count) entries the follower missed \(missed)")
            #expect(inOrder, "the follower saw the entries in another order than the history")
        }
    }

    /// A store transaction credited as a key pack is refused by the OpenCat API, and one the OpenCat API recorded
    /// never credits keys: one proof, one redemption, whichever API comes first.
    @Test(arguments: Backend.allCases)
    func aTransactionRedeemedByOneAPIIsRefusedByTheOther(backend: Backend) async throws {
        try await backend.withLedgers { ledgers in
            let info = { (id: String) in
                TransactionInfo(
                    transactionId: id,
                    productId: "keys_10",
                    store: .stripe,
                    purchaseDate: Date(timeIntervalSince1970: 1_790_000_000),
                    status: .active
                )
            }
            _ = try await ledgers[0].redeem(
                store: "stripe",
                transactionId: "pi_keys_first",
                userId: "alice",
                amount: 11
            )
            let recorded = await #expect(throws: LedgerError.self) {
                try await ledgers[1].record(info("pi_keys_first"), appUserId: "alice")
            }
            #expect(recorded?.code == .alreadyRedeemed)

            try await ledgers[1].record(info("pi_api_first"), appUserId: "bob")
            let redeemed = await #expect(throws: LedgerError.self) {
                try await ledgers[0].redeem(store: "stripe", transactionId: "pi_api_first", userId: "bob", amount: 11)
            }
            #expect(redeemed?.code == .alreadyRedeemed)
            #expect(try await ledgers[0].balance(of: "bob") == 0)
        }
    }
}
