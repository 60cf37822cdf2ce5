import Foundation
import OpenCatCore
import OpenCatServer
import OpenCatTesting
import Testing

/// The ledger against the key model (`KeyModel`, docs/SECURITY.md "The key model"): seeded random sequences of every
/// key operation — purchases with bonus and community keys, shares to users, shares from several senders to one
/// address without an account, take-backs, releases at sign-in, donations, spends, unlocks, operator adjustments,
/// whole and partial refunds (debt included) — applied to the model and to the ledger side by side, on SQLite and on
/// PostgreSQL with two instances taking turns. After every step each operation's answer and every account's balance,
/// debt and lots (by purchase and by share) must be the model's. The seed is printed; `OPENCAT_TEST_SEED` repeats it.
struct KeyModelDifferentialTests {
    /// 300, or `OPENCAT_TEST_MODEL_SEQUENCES` (a longer hunt for a bug, or a quicker look).
    static let sequences = ProcessInfo.processInfo.environment["OPENCAT_TEST_MODEL_SEQUENCES"].flatMap(Int.init) ?? 300
    static let steps = 30

    /// One operation, as the model and the ledger both take it.
    enum Operation: CustomStringConvertible {
        case purchase(user: String, transaction: String, community: Int64)
        case transfer(user: String, to: String, amount: Int64, key: String)
        case takeBack(share: String, user: String)
        case release(account: String, user: String)
        case spend(user: String, amount: Int64, key: String)
        case unlock(user: String, feature: String, cost: Int64, key: String)
        case adjust(user: String, amount: Int64)
        case refund(transaction: String, refunded: Int64)
        case refundNotice(transaction: String, refunded: Int64, event: String)

        var description: String {
            switch self {
            case .purchase(let user, let transaction, let community): "purchase \(transaction) by \(user) +\(community)"
            case .transfer(let user, let to, let amount, let key): "transfer \(amount) \(user) → \(to) (\(key))"
            case .takeBack(let share, let user): "take back \(share) by \(user)"
            case .release(let account, let user): "release \(account) to \(user)"
            case .spend(let user, let amount, _): "spend \(amount) by \(user)"
            case .unlock(let user, let feature, let cost, _): "unlock \(feature) for \(cost) by \(user)"
            case .adjust(let user, let amount): "adjust \(user) by \(amount)"
            case .refund(let transaction, let refunded): "refund \(transaction) \(refunded)/\(Self.paid)"
            case .refundNotice(let transaction, let refunded, _): "store refund \(transaction) \(refunded)/\(Self.paid)"
            }
        }

        static let paid: Int64 = 1_000
        static let packKeys: Int64 = 11
    }

    /// One sequence's accounts, model and share ids (the model names a share by its idempotency key, the ledger by
    /// its entry id).
    struct Sequence {
        let prefix: String
        var model = KeyModel()
        var shareEntries: [String: String] = [:]
        var poolBaseline: Int64 = 0
        var users: [String] { (0..<4).map { "\(prefix)u\($0)" } }
        var addresses: [String] { (0..<2).map { "pending:\(prefix)p\($0)@example.com" } }
        var accounts: [String] { users + addresses }
        var transactions: [String] { (0..<8).map { "\(prefix)pi\($0)" } }
    }

    @Test(arguments: Backend.allCases)
    func everyStepOfRandomSequencesLeavesEveryKeyWhereTheModelSays(backend: Backend) async throws {
        var random = SeededGenerator.fromEnvironment(ProcessInfo.processInfo.environment)
        let seed = random.seed
        print("KeyModelDifferentialTests (\(backend)): seed \(seed); rerun with OPENCAT_TEST_SEED=\(seed)")
        let seeds = (0..<Self.sequences).map { _ in random.next() }
        let started = ContinuousClock.now
        defer {
            print(
                "KeyModelDifferentialTests (\(backend)): \(Self.sequences) sequences of \(Self.steps) steps in "
                    + "\(ContinuousClock.now - started)"
            )
        }
        try await backend.withLedgers { ledgers in
            for (index, sequenceSeed) in seeds.enumerated() {
                var sequenceRandom = SeededGenerator(seed: sequenceSeed)
                var sequence = Sequence(prefix: "c\(index)-")
                sequence.poolBaseline = try await ledgers[0].balance(of: communityPoolAccount)
                for step in 0..<Self.steps {
                    let operation = Self.operation(sequence, step: step, &sequenceRandom)
                    let context = "seed \(seed), sequence \(index), step \(step): \(operation)"
                    let expected = Self.apply(operation, to: &sequence.model)
                    let answered = try await Self.apply(operation, ledgers[step % ledgers.count], &sequence)
                    // The first divergence ends the run: every later step would differ because of it.
                    #expect(expected == answered, "\(context): the model answered \(expected), the ledger \(answered)")
                    guard expected == answered else { return }
                    let differences = try await Self.differences(sequence, ledgers[(step + 1) % ledgers.count])
                    #expect(differences.isEmpty, "\(context): \(differences.joined(separator: "; "))")
                    guard differences.isEmpty else { return }
                }
            }
        }
    }

    /// A random operation over the sequence's accounts, purchases and shares.
    static func operation(_ sequence: Sequence, step: Int, _ random: inout SeededGenerator) -> Operation {
        let user = sequence.users.randomElement(using: &random)!
        let amount = Int64.random(in: 1...12, using: &random)
        let key = "\(sequence.prefix)k\(step)"
        switch Int.random(in: 0..<22, using: &random) {
        case 0..<4:
            let transaction = sequence.transactions.randomElement(using: &random)!
            return .purchase(user: user, transaction: transaction, community: Int64.random(in: 0...2, using: &random))
        case 4..<6:
            let recipient = sequence.users.filter { $0 != user }.randomElement(using: &random)!
            return .transfer(user: user, to: recipient, amount: amount, key: key)
        case 6..<9:
            let address = sequence.addresses.randomElement(using: &random)!
            return .transfer(user: user, to: address, amount: amount, key: key)
        case 9..<11:
            guard let share = sequence.model.shares.keys.sorted().randomElement(using: &random) else {
                return .release(account: sequence.addresses[0], user: user)
            }
            let sender = sequence.model.shares[share]!.sender
            return .takeBack(share: share, user: Int.random(in: 0..<8, using: &random) == 0 ? user : sender)
        case 11:
            return .release(account: sequence.addresses.randomElement(using: &random)!, user: user)
        case 12:
            return .transfer(user: user, to: communityPoolAccount, amount: amount, key: key)
        case 13..<15:
            return .spend(user: user, amount: amount, key: key)
        case 15:
            let feature = "f\(Int.random(in: 0..<3, using: &random))"
            return .unlock(user: user, feature: feature, cost: Int64.random(in: 0...6, using: &random), key: key)
        case 16:
            return .adjust(user: user, amount: Bool.random(using: &random) ? amount : -amount)
        default:
            let whole = Bool.random(using: &random)
            let refunded = whole ? Operation.paid : Int64.random(in: 1..<Operation.paid, using: &random)
            let transaction = sequence.transactions.randomElement(using: &random)!
            // As an operator refunds, or as a store's notification reports it (remembered even before a redemption).
            return Bool.random(using: &random)
                ? .refund(transaction: transaction, refunded: refunded)
                : .refundNotice(transaction: transaction, refunded: refunded, event: key)
        }
    }

    static func apply(_ operation: Operation, to model: inout KeyModel) -> KeyModel.Answer {
        switch operation {
        case .purchase(let user, let transaction, let community):
            model.redeem("stripe:\(transaction)", by: user, keys: Operation.packKeys, community: community)
        case .transfer(let user, let to, let amount, let key):
            model.transfer(user, to: to, amount, id: key)
        case .takeBack(let share, let user):
            model.takeBack(share, by: user)
        case .release(let account, let user):
            model.release(account, to: user)
        case .spend(let user, let amount, _):
            model.spend(user, amount)
        case .unlock(let user, let feature, let cost, _):
            model.unlock(user, feature: feature, cost: cost)
        case .adjust(let user, let amount):
            model.adjust(user, amount)
        case .refund(let transaction, let refunded):
            model.refund("stripe:\(transaction)", refunded: refunded, paid: Operation.paid)
        case .refundNotice(let transaction, let refunded, _):
            model.refundNotice("stripe:\(transaction)", refunded: refunded, paid: Operation.paid)
        }
    }

    static func apply(_ operation: Operation, _ ledger: any LedgerStore, _ sequence: inout Sequence) async throws
        -> KeyModel.Answer
    {
        do {
            switch operation {
            case .purchase(let user, let transaction, let community):
                let grant = KeyGrant(keys: Operation.packKeys - 1, bonusKeys: 1, communityKeys: community)
                let outcome = try await ledger.redeem(
                    store: "stripe",
                    transactionId: transaction,
                    userId: user,
                    grant: grant
                )
                return .done([outcome.replayed ? 1 : 0, outcome.communityKeys])
            case .transfer(let user, let to, let amount, let key):
                let pool = to == communityPoolAccount
                let outcome = try await ledger.transfer(
                    from: user,
                    to: to,
                    amount: amount,
                    kind: pool ? "donation" : "share",
                    receivedKind: pool ? "donation_received" : "received",
                    idempotencyKey: key
                )
                if to.hasPrefix(pendingAccountPrefix) { sequence.shareEntries[key] = outcome.entry.id }
                return .done([outcome.balance, outcome.recipientBalance - (pool ? sequence.poolBaseline : 0)])
            case .takeBack(let share, let user):
                return .done([try await ledger.cancelShare(sequence.shareEntries[share] ?? share, of: user)])
            case .release(let account, let user):
                return .done([try await ledger.release(account, to: user)])
            default:
                return try await applyOther(operation, ledger)
            }
        } catch let error as LedgerError {
            return .refused(error.code.rawValue)
        }
    }

    static func applyOther(_ operation: Operation, _ ledger: any LedgerStore) async throws -> KeyModel.Answer {
        switch operation {
        case .spend(let user, let amount, let key):
            let outcome = try await ledger.spend(
                userId: user,
                amount: amount,
                kind: "spend",
                reference: "f",
                app: nil,
                idempotencyKey: key
            )
            return .done([outcome.balance])
        case .unlock(let user, let feature, let cost, let key):
            let outcome = try await ledger.unlock(
                userId: user,
                app: "app",
                feature: feature,
                cost: cost,
                idempotencyKey: key
            )
            return .done([outcome.balance, outcome.alreadyUnlocked ? 1 : 0])
        case .adjust(let user, let amount):
            return .done([try await ledger.adjustWallet(userId: user, amount: amount, by: "model", reason: "test")])
        case .refund(let transaction, let refunded):
            let outcome = try await ledger.refund(
                store: "stripe",
                transactionId: transaction,
                share: RefundShare(refunded: Decimal(refunded), paid: Decimal(Operation.paid))
            )
            return .done(Self.numbers(outcome))
        case .refundNotice(let transaction, let refunded, let event):
            let notice = TransactionInfo(
                transactionId: transaction,
                productId: "keys_10",
                store: .stripe,
                purchaseDate: Date(timeIntervalSince1970: 1_790_000_000),
                status: .refunded
            )
            let outcome = try await ledger.applyStoreEvent(
                source: "stripe",
                eventId: event,
                update: notice,
                refundShare: RefundShare(refunded: Decimal(refunded), paid: Decimal(Operation.paid)),
                storeTime: nil,
                price: nil
            )
            return .done(outcome.refund.map(Self.numbers) ?? [-1])
        default:
            preconditionFailure("\(operation) is applied by apply(_:_:_:)")
        }
    }

    /// A refund's figures as the model answers them.
    static func numbers(_ outcome: RefundOutcome) -> [Int64] {
        [
            outcome.clawedBack, outcome.reversedFromRecipients, outcome.debt, Int64(outcome.revokedUnlocks),
            outcome.alreadyApplied ? 1 : 0,
        ]
    }

    /// Where the ledger and the model disagree: each account's balance and its lots by (purchase, share), the pool's
    /// change since the sequence began and its lots of the sequence's purchases. Read in one transaction.
    static func differences(_ sequence: Sequence, _ ledger: any LedgerStore) async throws -> [String] {
        let accounts = sequence.accounts + [communityPoolAccount]
        let marks = Array(repeating: "?", count: accounts.count).joined(separator: ", ")
        // One statement: each account's balance (`part` b), then its lots by purchase and share (`part` l), the
        // pool's of this sequence's purchases only (it holds every sequence's).
        let others = Array(repeating: "?", count: accounts.count - 1).joined(separator: ", ")
        let rows = try await ledger.transaction(locking: []) { connection in
            try await connection.query(
                """
                SELECT 'b' AS part, user_id, NULL AS source, NULL AS via, CAST(SUM(amount) AS BIGINT) AS keys
                FROM ledger_entries WHERE user_id IN (\(marks)) GROUP BY user_id
                UNION ALL
                SELECT 'l' AS part, user_id, source, via, CAST(SUM(remaining) AS BIGINT) AS keys FROM key_lots
                WHERE remaining > 0 AND (user_id IN (\(others)) OR (user_id = ? AND source LIKE ?))
                GROUP BY user_id, source, via
                """,
                accounts.map { .text($0) } + accounts.map { .text($0) } + [.text("stripe:\(sequence.prefix)%")]
            )
        }
        let balances = rows.filter { text($0["part"]) == "b" }
        let lots = rows.filter { text($0["part"]) == "l" }
        let viaKeys = Dictionary(uniqueKeysWithValues: sequence.shareEntries.map { ($1, $0) })
        var ledgerBalances: [String: Int64] = [:]
        for row in balances { ledgerBalances[text(row["user_id"]) ?? ""] = integer(row["keys"]) }
        ledgerBalances[communityPoolAccount, default: 0] -= sequence.poolBaseline
        var ledgerLots: [String: [String: Int64]] = [:]
        for row in lots {
            let account = text(row["user_id"]) ?? ""
            let source = text(row["source"])
            if account == communityPoolAccount, !(source ?? "").hasPrefix("stripe:\(sequence.prefix)") { continue }
            let via = text(row["via"]).map { viaKeys[$0] ?? $0 }
            ledgerLots[account, default: [:]][KeyModel.holdingKey(source, via)] = integer(row["keys"])
        }
        var differences: [String] = []
        for account in accounts {
            let expected = sequence.model.balance(account)
            let actual = ledgerBalances[account] ?? 0
            if expected != actual { differences.append("\(account)'s balance is \(actual), the model's \(expected)") }
            var expectedLots = sequence.model.holdings(account)
            if account == communityPoolAccount { expectedLots = expectedLots.filter { !$0.key.hasPrefix("-|") } }
            let actualLots = ledgerLots[account] ?? [:]
            if expectedLots != actualLots {
                differences.append(
                    "\(account)'s lots are \(actualLots.sorted { $0.key < $1.key }), the model's "
                        + "\(expectedLots.sorted { $0.key < $1.key })"
                )
            }
        }
        return differences
    }

    static func text(_ value: SQLValue?) -> String? {
        if case .text(let text) = value { return text }
        return nil
    }

    static func integer(_ value: SQLValue?) -> Int64 {
        switch value {
        case .integer(let number): number
        case .real(let number): Int64(exactly: number) ?? 0
        case .text(let text): Int64(text) ?? 0
        default: 0
        }
    }
}
