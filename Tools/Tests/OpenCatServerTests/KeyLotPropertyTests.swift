import Foundation
import OpenCatServer
import OpenCatTesting
import Testing

/// Random graphs of purchases, shares, donations, pending accounts released on sign-in, spends, unlocks and whole or
/// partial refunds, seeded (`OPENCAT_TEST_SEED` repeats a run; the seed is printed), on SQLite and on PostgreSQL with
/// two instances taking turns. After every refund: no key of a wholly refunded purchase is held anywhere, and the
/// refund's debt is exactly the refunded keys nobody held any more (spent). After every case: each account's entries
/// sum to its balance, its lots to its balance when positive (zero in debt), and only refunded buyers are in debt.
struct KeyLotPropertyTests {
    static let cases = 200
    static let steps = 20

    /// One random case's accounts and purchases.
    struct World {
        let prefix: String
        var users: [String] { (0..<4).map { "\(prefix)u\($0)" } }
        var pending: [String] { (0..<2).map { "pending:\(prefix)p\($0)@example.com" } }
        var purchases: [(id: String, buyer: String, refunded: Decimal)] = []
        var debtors: Set<String> = []
        var counter = 0
    }

    @Test(arguments: Backend.allCases)
    func noKeyOfARefundedPurchaseStaysSpendableInAnyRandomGraph(backend: Backend) async throws {
        var random = SeededGenerator.fromEnvironment(ProcessInfo.processInfo.environment)
        let seed = random.seed
        print("KeyLotPropertyTests (\(backend)): seed \(seed); rerun with OPENCAT_TEST_SEED=\(seed)")
        let seeds = (0..<Self.cases).map { _ in random.next() }
        try await backend.withLedgers { ledgers in
            for (index, caseSeed) in seeds.enumerated() {
                var caseRandom = SeededGenerator(seed: caseSeed)
                var world = World(prefix: "c\(index)-")
                for step in 0..<Self.steps {
                    try await Self.step(&world, ledgers[step % ledgers.count], &caseRandom, seed: seed)
                }
                try await Self.checkBooks(world, ledgers[0], seed: seed)
            }
        }
    }

    static func step(
        _ world: inout World,
        _ ledger: any LedgerStore,
        _ random: inout SeededGenerator,
        seed: UInt64
    ) async throws {
        world.counter += 1
        let key = "\(world.prefix)k\(world.counter)"
        let user = world.users.randomElement(using: &random)!
        let amount = Int64.random(in: 1...12, using: &random)
        do {
            switch Int.random(in: 0..<18, using: &random) {
            case 0..<3:
                let id = "pi_\(key)"
                _ = try await ledger.redeem(
                    store: "stripe",
                    transactionId: id,
                    userId: user,
                    grant: KeyGrant(keys: 10, bonusKeys: 1, communityKeys: 1)
                )
                world.purchases.append((id, user, 0))
            case 3..<7:
                let recipient = world.users.filter { $0 != user }.randomElement(using: &random)!
                _ = try await ledger.transfer(
                    from: user,
                    to: recipient,
                    amount: amount,
                    kind: "share",
                    receivedKind: "received",
                    idempotencyKey: key
                )
            case 7..<9:
                _ = try await ledger.transfer(
                    from: user,
                    to: world.pending.randomElement(using: &random)!,
                    amount: amount,
                    kind: "share",
                    receivedKind: "received",
                    idempotencyKey: key
                )
            case 9:
                _ = try await ledger.release(world.pending.randomElement(using: &random)!, to: user)
            case 10:
                _ = try await ledger.transfer(
                    from: user,
                    to: communityPoolAccount,
                    amount: amount,
                    kind: "donation",
                    receivedKind: "donation_received",
                    idempotencyKey: key
                )
            case 11..<14:
                _ = try await ledger.spend(
                    userId: user,
                    amount: amount,
                    kind: "spend",
                    reference: "f",
                    app: nil,
                    idempotencyKey: key
                )
            case 14:
                _ = try await ledger.unlock(userId: user, app: "app", feature: key, cost: amount, idempotencyKey: key)
            default:
                try await refundOne(&world, ledger, &random, seed: seed)
            }
        } catch let error as LedgerError where error.code == .insufficientBalance {}
    }

    /// Refunds a random purchase, wholly or in part (cumulatively, as stores report), and checks what it took.
    static func refundOne(
        _ world: inout World,
        _ ledger: any LedgerStore,
        _ random: inout SeededGenerator,
        seed: UInt64
    ) async throws {
        guard
            let index = world.purchases.indices.filter({ world.purchases[$0].refunded < 10 })
                .randomElement(using: &random)
        else { return }
        let purchase = world.purchases[index]
        let refunded = Bool.random(using: &random) ? Decimal(10) : Decimal(Int.random(in: 1...9, using: &random))
        guard refunded > purchase.refunded else { return }
        let held = try await ledger.heldKeys(store: "stripe", transactionId: purchase.id)
        let outcome = try await ledger.refund(
            store: "stripe",
            transactionId: purchase.id,
            share: RefundShare(refunded: refunded, paid: 10)
        )
        world.purchases[index].refunded = refunded
        let context = "seed \(seed), \(purchase.id), refunded \(refunded) of 10"
        #expect(outcome.debt == max(0, outcome.clawedBack - held), "\(context)")
        #expect(outcome.clawedBack <= held + outcome.debt, "\(context)")
        if outcome.debt > 0 { world.debtors.insert(purchase.buyer) }
        if refunded == 10 {
            #expect(try await ledger.heldKeys(store: "stripe", transactionId: purchase.id) == 0, "\(context)")
        }
    }

    static func checkBooks(_ world: World, _ ledger: any LedgerStore, seed: UInt64) async throws {
        for account in world.users + world.pending {
            let balance = try await ledger.balance(of: account)
            let entries = try await ledger.entries(of: account, limit: 1_000).reduce(0) { $0 + $1.amount }
            let lots = try await ledger.lots(of: account).reduce(0) { $0 + $1.keys }
            #expect(entries == balance, "seed \(seed): \(account)'s entries")
            #expect(lots == max(balance, 0), "seed \(seed): \(account)'s lots")
            if !world.debtors.contains(account) { #expect(balance >= 0, "seed \(seed): \(account) in debt") }
        }
    }
}
