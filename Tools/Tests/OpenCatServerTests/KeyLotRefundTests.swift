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

/// A take-back returns exactly the sender's own keys that still wait (docs/SECURITY.md, "The key model"): two
/// senders share to one address nobody has signed in with, and neither the other's take-back nor a refund of the
/// other's pack ever moves an innocent sender's keys. On SQLite and on PostgreSQL with two instances.
struct PendingShareTakeBackTests {
    static let kid = "pending:kid@example.com"

    /// Bob and Alice each buy a pack of 10 + 1 keys and share all 11 to `kid@`; returns Bob's and Alice's share ids.
    static func twoSenders(_ ledgers: [any LedgerStore]) async throws -> (bob: String, alice: String) {
        for (buyer, payment) in [("bob", "pi_bob"), ("alice", "pi_alice")] {
            _ = try await ledgers[0].redeem(
                store: "stripe",
                transactionId: payment,
                userId: buyer,
                grant: KeyGrant(keys: 10, bonusKeys: 1)
            )
        }
        var ids: [String] = []
        for (index, sender) in ["bob", "alice"].enumerated() {
            ids.append(
                try await ledgers[index % ledgers.count].transfer(
                    from: sender,
                    to: kid,
                    amount: 11,
                    kind: "share",
                    receivedKind: "received",
                    idempotencyKey: "share-\(sender)"
                ).entry.id
            )
        }
        return (ids[0], ids[1])
    }

    @Test(arguments: Backend.allCases)
    func aSenderWhoTakesBackThenIsRefundedKeepsNoKeysAndTheOtherSenderGetsAllOfHersBack(backend: Backend)
        async throws
    {
        try await backend.withLedgers { ledgers in
            let shares = try await Self.twoSenders(ledgers)
            #expect(try await ledgers[1].cancelShare(shares.bob, of: "bob") == 11)
            #expect(try await ledgers[0].lots(of: "bob") == [KeyLot(source: "stripe:pi_bob", keys: 11)])
            let refund = try await ledgers[1].refund(store: "stripe", transactionId: "pi_bob")
            #expect(refund.clawedBack == 11 && refund.debt == 0 && refund.reversedFromRecipients == 0)
            #expect(try await ledgers[0].balance(of: "bob") == 0)
            #expect(try await ledgers[0].cancelShare(shares.alice, of: "alice") == 11)
            #expect(try await ledgers[1].lots(of: "alice") == [KeyLot(source: "stripe:pi_alice", keys: 11)])
            #expect(try await ledgers[0].balance(of: Self.kid) == 0)
            #expect(try await ledgers[1].release(Self.kid, to: "kid") == 0)
        }
    }

    @Test(arguments: Backend.allCases)
    func aRefundOfOneSendersPackWhileBothWaitTakesNothingFromTheOther(backend: Backend) async throws {
        try await backend.withLedgers { ledgers in
            let shares = try await Self.twoSenders(ledgers)
            let refund = try await ledgers[1].refund(store: "stripe", transactionId: "pi_bob")
            #expect(refund.clawedBack == 11 && refund.reversedFromRecipients == 11 && refund.debt == 0)
            #expect(try await ledgers[0].lots(of: Self.kid) == [KeyLot(source: "stripe:pi_alice", keys: 11)])
            #expect(try await ledgers[0].cancelShare(shares.bob, of: "bob") == 0)
            #expect(try await ledgers[1].cancelShare(shares.alice, of: "alice") == 11)
            #expect(try await ledgers[0].balance(of: "alice") == 11)
            #expect(try await ledgers[0].balance(of: "bob") == 0)
            #expect(try await ledgers[1].balance(of: Self.kid) == 0)
        }
    }

    @Test(arguments: Backend.allCases)
    func theRecipientWhoSignsInGetsWhatNoSenderTookBack(backend: Backend) async throws {
        try await backend.withLedgers { ledgers in
            let shares = try await Self.twoSenders(ledgers)
            #expect(try await ledgers[0].cancelShare(shares.alice, of: "alice") == 11)
            #expect(try await ledgers[1].release(Self.kid, to: "kid") == 11)
            #expect(try await ledgers[0].lots(of: "kid") == [KeyLot(source: "stripe:pi_bob", keys: 11)])
            let late = try await #require(throws: LedgerError.self) {
                try await ledgers[1].cancelShare(shares.bob, of: "bob")
            }
            #expect(late.code == .alreadyReceived)
        }
    }
}

/// The revocation list's serial is the newest revocation's (milliseconds of its time, or one more than the serial
/// before), never a count of rows: a database restored from an older backup signs a lower serial, which devices
/// refuse, and its next revocation a higher one than any list before, never an equal serial with other contents.
struct RevocationSerialTests {
    static func license(_ key: String, _ transaction: String) -> LicenseRecord {
        LicenseRecord(
            keyValue: key,
            userId: "alice",
            plan: "L1",
            license: "key/\(key)",
            store: "stripe",
            transactionId: transaction,
            createdAt: Date(timeIntervalSince1970: 1_790_000_000)
        )
    }

    @Test func aRestoredDatabaseNeverSignsAnEqualSerialWithOtherContents() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-serial-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
        let live = folder.appendingPathComponent("ledger.sqlite")
        let backup = folder.appendingPathComponent("backup.sqlite")
        var serials: [UInt64] = []
        do {
            let ledger = try SQLiteLedgerStore(fileURL: live, now: { clock.now })
            for (number, transaction) in ["pi_1", "pi_2", "pi_3"].enumerated() {
                var grant = KeyGrant(keys: 10)
                grant.licenses = [Self.license("KEY-\(number)", transaction)]
                _ = try await ledger.redeem(store: "stripe", transactionId: transaction, userId: "alice", grant: grant)
            }
            _ = try await ledger.refund(store: "stripe", transactionId: "pi_1")
            serials.append(try await ledger.revocations().serial)
            // The backup, taken after one revocation (the database and its write-ahead log).
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: live.path + suffix) {
                try FileManager.default.copyItem(
                    at: URL(fileURLWithPath: live.path + suffix),
                    to: URL(fileURLWithPath: backup.path + suffix)
                )
            }
            clock.advance(1)
            _ = try await ledger.refund(store: "stripe", transactionId: "pi_2")
            serials.append(try await ledger.revocations().serial)
        }
        // Restored from the backup: one revocation, a lower serial than the list devices already hold.
        clock.advance(1)
        let restored = try SQLiteLedgerStore(fileURL: backup, now: { clock.now })
        let before = try await restored.revocations()
        #expect(before.keys == ["KEY-0"] && before.serial == serials[0])
        // Its next revocation: as many rows revoked as the live list had, with other contents, and a higher serial.
        _ = try await restored.refund(store: "stripe", transactionId: "pi_3")
        let after = try await restored.revocations()
        #expect(after.keys == ["KEY-0", "KEY-2"])
        #expect(serials[0] >= 1_790_000_000_000 && serials[1] > serials[0] && after.serial > serials[1])
    }
}
