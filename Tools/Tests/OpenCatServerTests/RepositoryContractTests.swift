import Foundation
import OpenCatCore
import Testing

@testable import OpenCatServer

// One contract suite per repository protocol (Tools/server/OpenCatServer/Ledger/Repositories.swift), each run on
// SQLite and on PostgreSQL (two instances of one database there). The suites reach the database only through the
// protocol under test, as a controller does; the invariants under concurrency have their own suites (LedgerTests,
// RefundLedgerTests, KeyModelDifferentialTests).

@Suite struct WalletRepositoryContract {
    @Test(arguments: Backend.allCases)
    func balancesAreTheSumOfEntriesAndASpendAppliesOncePerKey(backend: Backend) async throws {
        try await backend.withStores(2, now: { Date() }) { stores in
            _ = try await stores[0].redeem(store: "stripe", transactionId: "pi_w1", userId: "ana", amount: 10)
            let wallet: any WalletRepository = stores[0]
            let other: any WalletRepository = stores.last!
            let spent = try await wallet.spend(
                userId: "ana",
                amount: 3,
                kind: "spend",
                reference: "export",
                app: "app",
                idempotencyKey: "k1"
            )
            let replay = try await other.spend(
                userId: "ana",
                amount: 3,
                kind: "spend",
                reference: "export",
                app: "app",
                idempotencyKey: "k1"
            )
            #expect(spent.balance == 7 && replay.replayed && replay.entry.id == spent.entry.id)
            let short = await #expect(throws: LedgerError.self) {
                try await wallet.spend(
                    userId: "ana",
                    amount: 8,
                    kind: "spend",
                    reference: nil,
                    app: nil,
                    idempotencyKey: "k2"
                )
            }
            #expect(short?.code == .insufficientBalance)
            let entries = try await other.entries(of: "ana", limit: 10)
            #expect(entries.map(\.amount).reduce(0, +) == (try await wallet.balance(of: "ana")))
            let conflict = await #expect(throws: LedgerError.self) {
                try await wallet.claimIdempotencyKey(userId: "ana", key: "k9", operation: "a", fingerprint: "1")
                try await other.claimIdempotencyKey(userId: "ana", key: "k9", operation: "a", fingerprint: "2")
            }
            #expect(conflict?.code == .idempotencyConflict)
        }
    }

    @Test(arguments: Backend.allCases)
    func unlocksTransfersPagesAndTheHoldingAccount(backend: Backend) async throws {
        try await backend.withStores(2, now: { Date() }) { stores in
            _ = try await stores[0].redeem(store: "stripe", transactionId: "pi_w2", userId: "ben", amount: 20)
            let wallet: any WalletRepository = stores.last!
            let unlock = try await wallet.unlock(
                userId: "ben",
                app: "app",
                feature: "pro",
                cost: 5,
                idempotencyKey: "u"
            )
            let again = try await wallet.unlock(userId: "ben", app: "app", feature: "pro", cost: 5, idempotencyKey: "v")
            #expect(unlock.balance == 15 && again.balance == 15)
            #expect(try await wallet.unlockedFeatures(of: "ben") == ["app": ["pro"]])
            _ = try await wallet.transfer(
                from: "ben",
                to: "pending:cy@example.com",
                amount: 4,
                kind: "share",
                receivedKind: "received",
                idempotencyKey: "s"
            )
            _ = try await wallet.transfer(
                from: "ben",
                to: communityPoolAccount,
                amount: 1,
                kind: "donation",
                receivedKind: "donation_received",
                idempotencyKey: "d"
            )
            #expect(try await wallet.release("pending:cy@example.com", to: "cy") == 4)
            #expect(try await wallet.balance(of: "cy") == 4)
            #expect(try await wallet.communityPool() == (totalKeys: 1, contributors: 1))
            let first = try await wallet.history(of: "ben", after: nil, limit: 2)
            let rest = try await wallet.history(of: "ben", after: first.nextCursor, limit: 10)
            #expect(first.entries.count == 2 && rest.entries.count == 2 && rest.nextCursor == nil)
            let feed = try await wallet.follow("ben", after: nil, limit: 10)
            #expect(feed.entries.map(\.kind) == ["purchase", "unlock", "share", "donation"])
            #expect(try await wallet.lots(of: "cy").map(\.keys).reduce(0, +) == 4)
            #expect(try await wallet.adjustWallet(userId: "cy", amount: -1, by: "ops", reason: "test") == 3)
        }
    }
}

extension WalletRepositoryContract {
    /// A share to an address nobody has used waits for it: its sender sees it and takes it back once; after the
    /// owner signed in it is theirs (409 `already_received`); another user cannot cancel it.
    @Test(arguments: Backend.allCases)
    func aPendingShareIsTakenBackOnceUntilItsRecipientSignsIn(backend: Backend) async throws {
        try await backend.withStores(2, now: { Date() }) { stores in
            _ = try await stores[0].redeem(store: "stripe", transactionId: "pi_w3", userId: "dan", amount: 20)
            let wallet: any WalletRepository = stores[0]
            let other: any WalletRepository = stores.last!
            func share(_ keys: Int64, to email: String, key: String) async throws -> String {
                try await wallet.transfer(
                    from: "dan",
                    to: "pending:\(email)",
                    amount: keys,
                    kind: "share",
                    receivedKind: "received",
                    idempotencyKey: key
                ).entry.id
            }
            let first = try await share(4, to: "eve@example.com", key: "s1")
            let second = try await share(3, to: "eve@example.com", key: "s2")
            let third = try await share(2, to: "fay@example.com", key: "s3")
            #expect(try await other.pendingShares(of: "dan").map(\.entryId) == [third, second, first])
            #expect(try await other.pendingShares(of: "dan").first?.email == "fay@example.com")
            let stranger = await #expect(throws: LedgerError.self) { try await other.cancelShare(first, of: "eve") }
            #expect(stranger?.code == .notFound)
            #expect(try await other.cancelShare(first, of: "dan") == 4)
            #expect(try await wallet.cancelShare(first, of: "dan") == 0)
            #expect(try await wallet.balance(of: "dan") == 15)
            #expect(try await wallet.balance(of: "pending:eve@example.com") == 3)
            #expect(try await wallet.pendingShares(of: "dan").map(\.entryId) == [third, second])
            // Eve signs in: the second share is hers now and cannot be taken back.
            #expect(try await wallet.release("pending:eve@example.com", to: "eve") == 3)
            let received = await #expect(throws: LedgerError.self) { try await other.cancelShare(second, of: "dan") }
            #expect(received?.code == .alreadyReceived)
            #expect(try await wallet.pendingShares(of: "dan").map(\.entryId) == [third])
            for account in ["dan", "eve", "pending:eve@example.com"] {
                let sum = try await wallet.entries(of: account, limit: 100).map(\.amount).reduce(0, +)
                #expect(sum == (try await wallet.balance(of: account)), "\(account)")
                #expect(try await wallet.lots(of: account).map(\.keys).reduce(0, +) == max(sum, 0), "\(account)")
            }
        }
    }

    /// Twenty shares cancelled while their recipients sign in, on two instances at once: each share's keys end in
    /// exactly one wallet, and every balance is the sum of its entries.
    @Test(arguments: Backend.allCases)
    func cancelsRacingSignInsMoveEachShareOnce(backend: Backend) async throws {
        try await backend.withStores(2, now: { Date() }) { stores in
            _ = try await stores[0].redeem(store: "stripe", transactionId: "pi_w4", userId: "gus", amount: 100)
            var shares: [String] = []
            for index in 0..<20 {
                shares.append(
                    try await stores[0].transfer(
                        from: "gus",
                        to: "pending:r\(index)@example.com",
                        amount: 5,
                        kind: "share",
                        receivedKind: "received",
                        idempotencyKey: "race-\(index)"
                    ).entry.id
                )
            }
            let outcomes = try await withThrowingTaskGroup(of: (Int, Int64?, Int64).self) { group in
                for (index, share) in shares.enumerated() {
                    group.addTask {
                        let returned: Int64?
                        do { returned = try await stores[index % stores.count].cancelShare(share, of: "gus") } catch let
                            error
                            as LedgerError where error.code == .alreadyReceived
                        { returned = nil }
                        return (index, returned, 0)
                    }
                    group.addTask {
                        (
                            index, nil,
                            try await stores[(index + 1) % stores.count].release(
                                "pending:r\(index)@example.com",
                                to: "r\(index)"
                            )
                        )
                    }
                }
                var all: [(Int, Int64?, Int64)] = []
                for try await outcome in group { all.append(outcome) }
                return all
            }
            for index in 0..<20 {
                let cancelled = outcomes.filter { $0.0 == index }.compactMap(\.1).reduce(0, +)
                let released = outcomes.filter { $0.0 == index }.map(\.2).reduce(0, +)
                #expect(cancelled + released == 5, "share \(index): \(cancelled) back, \(released) received")
                #expect(try await stores[0].balance(of: "r\(index)") == released)
                #expect(try await stores[0].balance(of: "pending:r\(index)@example.com") == 0)
            }
            let back = outcomes.compactMap(\.1).reduce(0, +)
            #expect(try await stores.last!.balance(of: "gus") == back)
            let sum = try await stores[0].entries(of: "gus", limit: 1_000).map(\.amount).reduce(0, +)
            #expect(sum == back)
        }
    }
}

@Suite struct RedemptionRepositoryContract {
    @Test(arguments: Backend.allCases)
    func aTransactionIsRedeemedOnceAndARefundTakesBackWhatItPaidFor(backend: Backend) async throws {
        try await backend.withStores(2, now: { Date() }) { stores in
            let one: any RedemptionRepository = stores[0]
            let two: any RedemptionRepository = stores.last!
            let outcome = try await one.redeem(
                store: "paypal",
                transactionId: "O-1",
                userId: "ana",
                grant: KeyGrant(keys: 10, bonusKeys: 1)
            )
            #expect(outcome.entry.amount == 11 && !outcome.replayed)
            #expect(
                try await one.redeem(
                    store: "paypal",
                    transactionId: "O-1",
                    userId: "ana",
                    grant: KeyGrant(keys: 10, bonusKeys: 1)
                ).replayed
            )
            let taken = await #expect(throws: LedgerError.self) {
                try await two.redeem(store: "paypal", transactionId: "O-1", userId: "ben", amount: 10)
            }
            #expect(taken?.code == .alreadyRedeemed)
            #expect(try await two.redeemer(store: "paypal", transactionId: "O-1") == "ana")
            #expect(try await one.redeemer(store: "paypal", transactionId: "O-2") == nil)
            #expect(try await two.heldKeys(store: "paypal", transactionId: "O-1") == 11)
            let refund = try await two.refund(store: "paypal", transactionId: "O-1")
            #expect(refund.clawedBack == 11)
            #expect(try await one.heldKeys(store: "paypal", transactionId: "O-1") == 0)
            #expect(try await one.redemptions(of: "ana").map(\.refunded) == [true])
            #expect(try await one.refund(store: "paypal", transactionId: "O-1").alreadyApplied)
        }
    }

    @Test(arguments: Backend.allCases)
    func aOneTimeUseIsAcceptedOnceAcrossInstances(backend: Backend) async throws {
        try await backend.withStores(2, now: { Date() }) { stores in
            let one: any RedemptionRepository = stores[0]
            let two: any RedemptionRepository = stores.last!
            let first = try await one.useOnce(kind: "steam_ticket", digest: "d1", subject: "765")
            let second = try await two.useOnce(kind: "steam_ticket", digest: "d1", subject: "765")
            #expect(first && !second)
        }
    }
}

@Suite struct SubscriberRepositoryContract {
    static func info(_ id: String, _ status: TransactionInfo.Status, expires: Date? = nil) -> TransactionInfo {
        TransactionInfo(
            transactionId: id,
            productId: "pro.monthly",
            store: .stripe,
            purchaseDate: Date(timeIntervalSince1970: 1_790_000_000),
            expirationDate: expires,
            status: status
        )
    }

    @Test(arguments: Backend.allCases)
    func transactionsAndStoreEventsApplyOnceInTheStoresOrder(backend: Backend) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_100))
        try await backend.withStores(2, now: { clock.now }) { stores in
            let one: any SubscriberRepository = stores[0]
            let two: any SubscriberRepository = stores.last!
            let later = Date(timeIntervalSince1970: 1_800_000_000)
            try await one.record(Self.info("sub_1", .active, expires: later), appUserId: "app-ana")
            #expect(try await two.subscriber("app-ana").transactions.map(\.transactionId) == ["sub_1"])
            let expired = Self.info("sub_1", .expired, expires: later)
            let applied = try await two.applyStoreEvent(
                source: "stripe",
                eventId: "evt_1",
                update: expired,
                refundShare: nil,
                storeTime: clock.now
            )
            let replayed = try await one.applyStoreEvent(source: "stripe", eventId: "evt_1", update: expired)
            #expect(applied.applied && !replayed.applied)
            // An event the store signed before the expiry changes nothing.
            _ = try await one.applyStoreEvent(
                source: "stripe",
                eventId: "evt_0",
                update: Self.info("sub_1", .active, expires: later),
                refundShare: nil,
                storeTime: clock.now.addingTimeInterval(-60)
            )
            #expect(try await two.storedTransaction(store: .stripe, transactionId: "sub_1")?.status == .expired)
        }
    }

    @Test(arguments: Backend.allCases)
    func promotionalEntitlementsAreGrantedAndRevokedOnce(backend: Backend) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
        try await backend.withStores(2, now: { clock.now }) { stores in
            let one: any SubscriberRepository = stores[0]
            let two: any SubscriberRepository = stores.last!
            try await one.grantPromotionalEntitlement(
                PromotionalEntitlement(
                    id: "promo_1",
                    appUserId: "app-ben",
                    entitlement: "pro",
                    startsAt: clock.now,
                    expiresAt: clock.now.addingTimeInterval(86_400),
                    grantedBy: "ops",
                    reason: "support"
                )
            )
            #expect(try await two.promotionalEntitlements(of: "app-ben").map(\.id) == ["promo_1"])
            #expect(
                try await two.revokePromotionalEntitlement(id: "promo_1", appUserId: "app-ben", by: "ops", reason: "r")
            )
            #expect(
                try await one.revokePromotionalEntitlement(id: "promo_1", appUserId: "app-ben", by: "ops", reason: "r")
                    == false
            )
        }
    }
}

@Suite struct WebSessionRepositoryContract {
    @Test(arguments: Backend.allCases)
    func aSignInLinkWorksOnceAndASessionEndsEverywhere(backend: Backend) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
        try await backend.withStores(2, now: { clock.now }) { stores in
            let one: any WebSessionRepository = stores[0]
            let two: any WebSessionRepository = stores.last!
            try await one.createSignInLink(tokenSHA256: "t1", email: "ana@example.com", expiresAt: clock.now + 900)
            #expect(try await two.signInLinkIsUsable(tokenSHA256: "t1"))
            #expect(try await two.useSignInLink(tokenSHA256: "t1") == "ana@example.com")
            #expect(try await one.useSignInLink(tokenSHA256: "t1") == nil)
            try await one.createSignInLink(tokenSHA256: "t2", email: "ana@example.com", expiresAt: clock.now + 900)
            clock.advance(901)
            #expect(try await two.useSignInLink(tokenSHA256: "t2") == nil)
            let session = WebSession(kind: "portal", subject: "ana@example.com", csrf: "c")
            try await one.createWebSession(idSHA256: "s1", session: session, expiresAt: clock.now + 3_600)
            #expect(try await two.webSession(idSHA256: "s1", kind: "portal") == session)
            #expect(try await two.webSession(idSHA256: "s1", kind: "console") == nil)
            try await two.endWebSession(idSHA256: "s1")
            #expect(try await one.webSession(idSHA256: "s1", kind: "portal") == nil)
        }
    }
}

@Suite struct WebOrderRepositoryContract {
    @Test(arguments: Backend.allCases)
    func anOrderIsFoundByReferenceBuyerEmailAndTransaction(backend: Backend) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
        try await backend.withStores(2, now: { clock.now }) { stores in
            let one: any WebOrderRepository = stores[0]
            let two: any WebOrderRepository = stores.last!
            let order = WebOrder(
                store: "stripe",
                reference: "cs_1",
                userId: "web:ana@example.com",
                email: "ana@example.com",
                productId: "keys_10",
                quantity: 3,
                amount: "29.97",
                currency: "usd",
                state: "created",
                createdAt: clock.now
            )
            try await one.recordWebOrder(order)
            // Recorded `created`, first checked with its store a minute later (WebOrderSchedule).
            var recorded = order
            recorded.nextCheckAt = clock.now.addingTimeInterval(WebOrderSchedule.first)
            #expect(try await two.webOrder(store: "stripe", reference: "cs_1") == recorded)
            #expect(try await two.webOrders(of: "web:ana@example.com").count == 1)
            #expect(try await two.webOrders(email: "ana@example.com").count == 1)
            try await two.markWebOrderCredited(store: "stripe", reference: "cs_1", transactionId: "pi_1")
            let credited = try await one.webOrders(store: "stripe", referenceOrTransaction: "pi_1")
            #expect(credited.map(\.transactionId) == ["pi_1"] && credited.first?.state != "created")
            // Moves follow the order model only: a credited order is never paid or expired again, only refunded.
            #expect(try await one.moveWebOrder(store: "stripe", reference: "cs_1", .expired) == nil)
            #expect(try await one.moveWebOrder(store: "stripe", reference: "cs_1", .refunded) == .refunded)
            #expect(try await two.webOrderCounts()["refunded"] == 1)
            #expect(try await two.unsettledWebOrders(dueBy: nil).isEmpty)
            #expect(try await one.webOrder(store: "paypal", reference: "cs_1") == nil)
        }
    }
}

@Suite struct SalesAuditRepositoryContract {
    @Test(arguments: Backend.allCases)
    func aSaleIsRecordedOnceAndTheReportsReadTheLedger(backend: Backend) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_790_000_000))
        try await backend.withStores(2, now: { clock.now }) { stores in
            _ = try await stores[0].redeem(store: "stripe", transactionId: "pi_s1", userId: "ana", amount: 10)
            let one: any SalesAuditRepository = stores[0]
            let two: any SalesAuditRepository = stores.last!
            let price = Money(amount: Decimal(string: "9.99")!, currency: "USD")
            for repository in [one, two] {
                try await repository.recordSale(
                    store: "stripe",
                    transactionId: "pi_s1",
                    userId: "ana",
                    productId: "keys_10",
                    price: price,
                    quantity: 1,
                    at: clock.now
                )
            }
            let sales = try await two.sales(since: clock.now.addingTimeInterval(-1))
            #expect(sales.count == 1 && sales.first?.price == price)
            let record = AuditRecord(
                operatorName: "ops",
                action: "note",
                subject: "ana",
                reason: "test",
                detail: nil,
                createdAt: clock.now
            )
            try await one.audit(record)
            #expect(try await two.auditLog(limit: 10).contains(record))
            #expect(try await two.reportEntries(since: clock.now.addingTimeInterval(-1)).map(\.amount) == [10])
            #expect(try await one.exportEntries().map(\.entry.userId) == ["ana"])
            #expect(try await one.customerMatches("pi_s1").map(\.userId) == ["ana"])
        }
    }
}

@Suite struct ServerStateRepositoryContract {
    @Test(arguments: Backend.allCases)
    func aSecretIsMadeOnceForEveryInstanceAndCursorsMove(backend: Backend) async throws {
        try await backend.withStores(2, now: { Date() }) { stores in
            let one: any ServerStateRepository = stores[0]
            let two: any ServerStateRepository = stores.last!
            let secret = try await one.serverSecret("contract") { "first" }
            #expect(secret == "first")
            #expect(try await two.serverSecret("contract") { "second" } == "first")
            #expect(try await two.reconciliationCursor("contract") == nil)
            let cursor = Date(timeIntervalSince1970: 1_790_000_000)
            try await one.setReconciliationCursor("contract", cursor)
            #expect(try await two.reconciliationCursor("contract") == cursor)
            try await two.ping()
            #expect(one.dialect == (backend == .sqlite ? .sqlite : .postgresql))
        }
    }
}
