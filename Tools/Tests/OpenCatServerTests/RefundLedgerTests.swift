import Foundation
import OpenCatServer
import Testing

/// Refunds take back everything the refunded purchase paid for (docs/SECURITY.md, "Refunds"), on SQLite and on
/// PostgreSQL with two instances: from the buyer, from whoever the buyer shared with, and the rest as debt that blocks
/// spending; a partial refund takes back only its share; an idempotency key is bound to one operation and body.
struct RefundLedgerTests {
    /// A pack of 10 keys + 1 bonus, 1 to the community pool.
    static let pack = KeyGrant(keys: 10, bonusKeys: 1, communityKeys: 1)

    /// What every account holds, from its entries (the ledger's own sums).
    static func spendable(_ ledger: any LedgerStore, _ users: [String]) async throws -> Int64 {
        var total: Int64 = 0
        for user in users { total += max(try await ledger.balance(of: user), 0) }
        return total
    }

    @Test(arguments: Backend.allCases)
    func sharingEveryKeyBeforeTheRefundLeavesNoSpendableKeyFromThePackAnywhere(backend: Backend) async throws {
        try await backend.withLedgers { ledgers in
            _ = try await ledgers[0].redeem(
                store: "stripe",
                transactionId: "pi_alice",
                userId: "alice",
                grant: Self.pack
            )
            _ = try await ledgers[1].transfer(
                from: "alice",
                to: "bob",
                amount: 11,
                kind: "share",
                receivedKind: "received",
                idempotencyKey: "share-1"
            )
            #expect(try await ledgers[0].balance(of: "bob") == 11)
            let refund = try await ledgers[1].refund(store: "stripe", transactionId: "pi_alice")
            #expect(refund.clawedBack == 11 && refund.reversedFromRecipients == 11 && refund.debt == 0)
            #expect(try await Self.spendable(ledgers[0], ["alice", "bob", communityPoolAccount]) == 0)
            // Applied once.
            let again = try await ledgers[0].refund(store: "stripe", transactionId: "pi_alice")
            #expect(again.alreadyApplied && again.clawedBack == 0)
        }
    }

    @Test(arguments: Backend.allCases)
    func keysAlreadySpentBecomeTheBuyersDebtWhichBlocksSpendingAndRevokesUnlocks(backend: Backend) async throws {
        try await backend.withLedgers { ledgers in
            let ledger = ledgers[0]
            _ = try await ledger.redeem(store: "stripe", transactionId: "pi_1", userId: "alice", grant: Self.pack)
            _ = try await ledger.transfer(
                from: "alice",
                to: "bob",
                amount: 5,
                kind: "share",
                receivedKind: "received",
                idempotencyKey: "s1"
            )
            _ = try await ledger.spend(
                userId: "bob",
                amount: 5,
                kind: "spend",
                reference: "echo",
                app: nil,
                idempotencyKey: "b1"
            )
            _ = try await ledger.unlock(userId: "alice", app: "app", feature: "pro", cost: 4, idempotencyKey: "u1")
            // Alice holds 2, Bob 0: 2 from Alice, nothing from Bob, 9 of debt; the unlock (4) is revoked against it.
            let refund = try await ledgers[1].refund(store: "stripe", transactionId: "pi_1")
            #expect(refund.clawedBack == 11 && refund.reversedFromRecipients == 0 && refund.debt == 9)
            #expect(refund.revokedUnlocks == 1)
            #expect(try await ledger.balance(of: "alice") == -5)
            #expect(try await ledger.unlockedFeatures(of: "alice").isEmpty)
            let error = await #expect(throws: LedgerError.self) {
                try await ledger.transfer(
                    from: "alice",
                    to: "bob",
                    amount: 1,
                    kind: "share",
                    receivedKind: "received",
                    idempotencyKey: "s2"
                )
            }
            #expect(error?.code == .insufficientBalance)
            // A later purchase pays the debt first.
            _ = try await ledger.redeem(store: "stripe", transactionId: "pi_2", userId: "alice", amount: 8)
            #expect(try await ledger.balance(of: "alice") == 3)
        }
    }

    @Test(arguments: Backend.allCases)
    func aOneCentRefundOfATenDollarPackTakesAtMostTheKeyThatCentBoughtAndKeepsTheLicense(backend: Backend)
        async throws
    {
        try await backend.withLedgers { ledgers in
            let ledger = ledgers[0]
            let license = LicenseRecord(
                keyValue: "KEY-1",
                userId: "alice",
                plan: "L1",
                license: "key/x",
                store: "stripe",
                transactionId: "pi_1",
                createdAt: Date(timeIntervalSince1970: 1_700_000_000)
            )
            var grant = Self.pack
            grant.licenses = [license]
            _ = try await ledger.redeem(store: "stripe", transactionId: "pi_1", userId: "alice", grant: grant)
            let cent = try await ledger.refund(
                store: "stripe",
                transactionId: "pi_1",
                share: RefundShare(refunded: Decimal(string: "0.01")!, paid: 10)
            )
            #expect(cent.clawedBack == 1 && cent.revokedLicenses == 0 && !cent.alreadyApplied)
            #expect(try await ledger.balance(of: "alice") == 10)
            #expect(try await ledger.licenses(of: "alice").count == 1)
            // The same share again changes nothing; half takes the difference; the whole takes the rest.
            #expect(
                try await ledger.refund(
                    store: "stripe",
                    transactionId: "pi_1",
                    share: RefundShare(refunded: Decimal(string: "0.01")!, paid: 10)
                ).alreadyApplied
            )
            let half = try await ledgers[1].refund(
                store: "stripe",
                transactionId: "pi_1",
                share: RefundShare(refunded: 5, paid: 10)
            )
            #expect(half.clawedBack == 5 && half.revokedLicenses == 0)
            let whole = try await ledger.refund(
                store: "stripe",
                transactionId: "pi_1",
                share: RefundShare(refunded: 10, paid: 10)
            )
            #expect(whole.clawedBack == 5 && whole.revokedLicenses == 1)
            #expect(try await ledger.balance(of: "alice") == 0)
            #expect(try await ledger.licenses(of: "alice").isEmpty)
        }
    }

    @Test(arguments: Backend.allCases)
    func anIdempotencyKeyIsBoundToOneOperationAndOneBody(backend: Backend) async throws {
        try await backend.withLedgers { ledgers in
            let ledger = ledgers[0]
            _ = try await ledger.redeem(store: "stripe", transactionId: "pi_1", userId: "alice", amount: 10)
            _ = try await ledger.spend(
                userId: "alice",
                amount: 2,
                kind: "spend",
                reference: "echo",
                app: nil,
                idempotencyKey: "k"
            )
            let donate = await #expect(throws: LedgerError.self) {
                try await ledgers[1].transfer(
                    from: "alice",
                    to: communityPoolAccount,
                    amount: 2,
                    kind: "donation",
                    receivedKind: "donation_received",
                    idempotencyKey: "k"
                )
            }
            #expect(donate?.code == .idempotencyConflict)
            let unlock = await #expect(throws: LedgerError.self) {
                try await ledger.unlock(userId: "alice", app: "app", feature: "pro", cost: 1, idempotencyKey: "k")
            }
            #expect(unlock?.code == .idempotencyConflict)
            #expect(try await ledger.balance(of: "alice") == 8)
            #expect(try await ledger.balance(of: communityPoolAccount) == 0)
        }
    }

    @Test(arguments: Backend.allCases)
    func aWalletWith1723EntriesPagesThroughAllOfThem(backend: Backend) async throws {
        try await backend.withLedgers(1) { ledgers in
            let ledger = ledgers[0]
            _ = try await ledger.redeem(store: "stripe", transactionId: "pi_1", userId: "alice", amount: 5_000)
            for index in 0..<1_722 {
                _ = try await ledger.spend(
                    userId: "alice",
                    amount: 1,
                    kind: "spend",
                    reference: "f",
                    app: nil,
                    idempotencyKey: "k\(index)"
                )
            }
            var seen: [String] = []
            var cursor: Int64?
            repeat {
                let page = try await ledger.history(of: "alice", after: cursor, limit: 500)
                seen += page.entries.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen.count == 1_723 && Set(seen).count == 1_723)
        }
    }

    /// Two instances redeem, share, spend and refund at once: every refunded pack is taken back in full (from its
    /// buyer, from recipients, as debt), nobody but a refunded buyer is ever below zero, and each account's entries
    /// sum to its balance.
    @Test(arguments: Backend.allCases)
    func refundsMixedIntoConcurrentSharesAndSpendsTakeBackEveryRefundedPack(backend: Backend) async throws {
        try await backend.withLedgers { ledgers in
            let users = (0..<20).map { "user-\($0)" }
            for (index, user) in users.enumerated() {
                _ = try await ledgers[index % 2].redeem(
                    store: "stripe",
                    transactionId: "pi_\(index)",
                    userId: user,
                    grant: KeyGrant(keys: 10)
                )
            }
            let refunded = Set(users.indices.filter { $0 % 4 == 0 })
            try await withThrowingTaskGroup(of: Void.self) { group in
                for operation in 0..<400 {
                    group.addTask {
                        let ledger = ledgers[operation % 2]
                        let user = users[operation % users.count]
                        do {
                            switch operation % 10 {
                            case 0 where refunded.contains((operation / 10) % users.count):
                                _ = try await ledger.refund(
                                    store: "stripe",
                                    transactionId: "pi_\((operation / 10) % users.count)"
                                )
                            case 1, 2, 3:
                                _ = try await ledger.transfer(
                                    from: user,
                                    to: users[(operation + 3) % users.count],
                                    amount: 2,
                                    kind: "share",
                                    receivedKind: "received",
                                    idempotencyKey: "share-\(operation)"
                                )
                            default:
                                _ = try await ledger.spend(
                                    userId: user,
                                    amount: 1,
                                    kind: "spend",
                                    reference: "f",
                                    app: nil,
                                    idempotencyKey: "spend-\(operation)"
                                )
                            }
                        } catch let error as LedgerError where error.code == .insufficientBalance {}
                    }
                }
                try await group.waitForAll()
            }
            // Every refund lands (those the load did not reach, now).
            for index in refunded { _ = try await ledgers[1].refund(store: "stripe", transactionId: "pi_\(index)") }
            var entriesByUser: [String: [LedgerEntry]] = [:]
            for user in users {
                var entries: [LedgerEntry] = []
                var cursor: Int64?
                repeat {
                    let page = try await ledgers[0].history(of: user, after: cursor, limit: 1_000)
                    entries += page.entries
                    cursor = page.nextCursor
                } while cursor != nil
                entriesByUser[user] = entries
                let balance = try await ledgers[1].balance(of: user)
                #expect(entries.reduce(0) { $0 + $1.amount } == balance)
                if !refunded.contains(users.firstIndex(of: user)!) { #expect(balance >= 0) }
            }
            // What each refunded buyer's refund took: its own refund entries plus reversals of the pack's keys
            // wherever they were; none of them is left anywhere.
            for index in refunded {
                let buyer = users[index]
                let own = entriesByUser[buyer]!.filter { $0.kind == "refund" }.reduce(0) { $0 - $1.amount }
                let reversed = entriesByUser.values.joined().filter {
                    $0.kind == "refund_reversal" && $0.reference == "stripe:pi_\(index)"
                }.reduce(0) { $0 - $1.amount }
                #expect(own + reversed == 10, "buyer \(buyer)")
                #expect(try await ledgers[0].heldKeys(store: "stripe", transactionId: "pi_\(index)") == 0)
            }
            for user in users {
                let lots = try await ledgers[0].lots(of: user).reduce(0) { $0 + $1.keys }
                #expect(lots == max(try await ledgers[0].balance(of: user), 0), "lots of \(user)")
            }
        }
    }
}
