import Foundation
import OpenCatServer
import OpenCatTesting
import Testing

/// A refund follows its keys (docs/SECURITY.md, "Refunds take back everything they paid for, and follow their keys"): every key remembers its purchase, so a
/// refund takes back that purchase's keys wherever they went — through pending accounts, over any number of hops — and
/// never a key that came from elsewhere. On SQLite and on PostgreSQL with two instances.
struct KeyLotRefundTests {
    static func share(_ ledger: any LedgerStore, _ from: String, _ to: String, _ amount: Int64) async throws {
        _ = try await ledger.transfer(
            from: from,
            to: to,
            amount: amount,
            kind: "share",
            receivedKind: "received",
            idempotencyKey: "share-\(UUID())"
        )
    }

    @Test(arguments: Backend.allCases)
    func keysSharedToAnEmailThatSignsInLaterAreTakenBackFromTheNewAccount(backend: Backend) async throws {
        try await backend.withLedgers { ledgers in
            _ = try await ledgers[0].redeem(
                store: "stripe",
                transactionId: "pi_pending",
                userId: "alice",
                grant: KeyGrant(keys: 10, bonusKeys: 1, communityKeys: 1)
            )
            try await Self.share(ledgers[1], "alice", "pending:new@example.com", 11)
            #expect(try await ledgers[0].release("pending:new@example.com", to: "newcomer") == 11)
            let refund = try await ledgers[1].refund(store: "stripe", transactionId: "pi_pending")
            #expect(refund.clawedBack == 11 && refund.reversedFromRecipients == 11 && refund.debt == 0)
            #expect(try await ledgers[0].balance(of: "newcomer") == 0)
            #expect(try await ledgers[0].balance(of: "alice") == 0)
            #expect(try await ledgers[0].heldKeys(store: "stripe", transactionId: "pi_pending") == 0)
        }
    }

    @Test(arguments: Backend.allCases)
    func keysPassedOnThreeTimesAreTakenBackFromTheLastHolder(backend: Backend) async throws {
        try await backend.withLedgers { ledgers in
            _ = try await ledgers[0].redeem(store: "stripe", transactionId: "pi_hops", userId: "carol", amount: 11)
            try await Self.share(ledgers[1], "carol", "bob", 11)
            try await Self.share(ledgers[0], "bob", "alice", 11)
            try await Self.share(ledgers[1], "alice", "dave", 4)
            let refund = try await ledgers[0].refund(store: "stripe", transactionId: "pi_hops")
            #expect(refund.clawedBack == 11 && refund.reversedFromRecipients == 11 && refund.debt == 0)
            for user in ["carol", "bob", "alice", "dave"] {
                #expect(try await ledgers[1].balance(of: user) == 0, "\(user)")
            }
            #expect(try await ledgers[0].heldKeys(store: "stripe", transactionId: "pi_hops") == 0)
        }
    }

    @Test(arguments: Backend.allCases)
    func aRefundNeverTakesKeysTheRecipientHeldBeforeThePurchase(backend: Backend) async throws {
        try await backend.withLedgers { ledgers in
            let ledger = ledgers[0]
            _ = try await ledger.redeem(store: "stripe", transactionId: "pi_bob", userId: "bob", amount: 5)
            _ = try await ledger.redeem(store: "stripe", transactionId: "pi_alice", userId: "alice", amount: 100)
            try await Self.share(ledgers[1], "alice", "bob", 100)
            _ = try await ledger.spend(
                userId: "bob",
                amount: 50,
                kind: "spend",
                reference: "f",
                app: nil,
                idempotencyKey: "bob-spend"
            )
            // Bob spent 50 of Alice's keys (the newest he held): those are Alice's debt; his own 5 stay his.
            let refund = try await ledgers[1].refund(store: "stripe", transactionId: "pi_alice")
            #expect(refund.clawedBack == 100 && refund.reversedFromRecipients == 50 && refund.debt == 50)
            #expect(try await ledger.balance(of: "bob") == 5)
            #expect(try await ledger.lots(of: "bob") == [KeyLot(source: "stripe:pi_bob", keys: 5)])
            #expect(try await ledger.balance(of: "alice") == -50)
            // Alice's next purchase repays her debt before it makes a lot.
            _ = try await ledger.redeem(store: "stripe", transactionId: "pi_alice_2", userId: "alice", amount: 60)
            #expect(try await ledger.lots(of: "alice") == [KeyLot(source: "stripe:pi_alice_2", keys: 10)])
        }
    }
}
