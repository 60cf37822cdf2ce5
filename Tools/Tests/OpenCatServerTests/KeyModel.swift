import Foundation

/// The key model (docs/SECURITY.md, "The key model"), as a pure value: where every key stands after every ledger
/// operation, with no database. `KeyModelDifferentialTests` runs random sequences against it and the ledger side by
/// side and compares every account's balance, debt and lots after each step; a new ledger operation joins this model
/// and that test in the same change.
///
/// The rules, one function each:
/// - A **lot** is keys of one source (a purchase `stripe:pi_…`, a pack's gift `…#gift`, or none) in one account;
///   keys shared to an address without an account also remember their share (`via`).
/// - A **debit** (spend, unlock, share, donation, release, take-back, negative adjustment) needs a balance of at
///   least its amount and takes the account's newest lots first.
/// - A **credit** repays the account's debt first; what is left arrives as lots of the same sources, newest last.
/// - A **take-back** returns exactly the lots its own share brought that still wait, never another sender's.
/// - A **release** moves everything a holding account holds to the account that signed in; shares then cannot be
///   taken back.
/// - A **refund** takes back `ceil(keys × refunded ÷ paid)` of the purchase's keys (cumulatively), wherever they are:
///   the buyer's lots of that purchase first, then every other account's, newest first; nothing else. What nobody
///   holds was spent and is the buyer's debt, set against the buyer's other keys; while in debt, the buyer's unlocks
///   paid after the purchase are revoked, newest first. The pack's gift goes back from the pool in proportion.
///   Keys donated to the pool from a refunded purchase leave the pool; donations of other keys stay.
struct KeyModel: Sendable {
    struct Lot: Sendable, Hashable {
        var seq: Int
        var source: String?
        var remaining: Int64
        var via: String?
    }

    struct Redemption: Sendable {
        var owner: String
        var granted: Int64
        var community: Int64
        var refundedKeys: Int64 = 0
        var giftTaken: Int64 = 0
        var whole = false
        var entrySeq: Int
    }

    struct Share: Sendable {
        var sender: String
        var account: String
        var amount: Int64
        var entrySeq: Int
        var cancelled = false
    }

    struct Unlock: Sendable {
        var cost: Int64
        var entrySeq: Int?
    }

    /// What an operation answered: the numbers its outcome reports, or the code it was refused with.
    enum Answer: Sendable, Equatable, CustomStringConvertible {
        case done([Int64])
        case refused(String)

        var description: String {
            switch self {
            case .done(let numbers): "done\(numbers)"
            case .refused(let code): "refused(\(code))"
            }
        }
    }

    static let pool = "community:pool"

    private(set) var balances: [String: Int64] = [:]
    private(set) var lots: [String: [Lot]] = [:]
    private(set) var unlocks: [String: [String: Unlock]] = [:]
    private(set) var shares: [String: Share] = [:]
    private var redemptions: [String: Redemption] = [:]
    private var refundedTransactions: Set<String> = []
    private var releases: [String: [Int]] = [:]
    private var nextLot = 0
    private var nextEntry = 0

    func balance(_ account: String) -> Int64 { balances[account, default: 0] }

    /// An account's keys by (source, via), as the ledger's `key_lots` sums them.
    func holdings(_ account: String) -> [String: Int64] {
        lots[account, default: []].reduce(into: [:]) { sums, lot in
            guard lot.remaining > 0 else { return }
            sums[Self.holdingKey(lot.source, lot.via), default: 0] += lot.remaining
        }
    }

    static func holdingKey(_ source: String?, _ via: String?) -> String { "\(source ?? "-")|\(via ?? "-")" }

    // MARK: Operations

    mutating func redeem(_ reference: String, by user: String, keys: Int64, community: Int64) -> Answer {
        if refundedTransactions.contains(reference) { return .refused("refunded") }
        if let earlier = redemptions[reference] {
            return earlier.owner == user && !earlier.whole
                ? .done([1, earlier.community]) : .refused("already_redeemed")
        }
        let before = balance(user)
        balances[user] = before + keys
        let seq = entry()
        redemptions[reference] = Redemption(owner: user, granted: keys, community: community, entrySeq: seq)
        let kept = keys - min(max(-before, 0), keys)
        if kept > 0 { addLot(user, source: reference, keys: kept) }
        if community > 0 {
            balances[Self.pool, default: 0] += community
            addLot(Self.pool, source: reference + "#gift", keys: community)
        }
        return .done([0, community])
    }

    mutating func spend(_ user: String, _ amount: Int64) -> Answer {
        guard let taken = debit(user, amount) else { return .refused("insufficient_balance") }
        _ = taken
        _ = entry()
        return .done([balance(user)])
    }

    mutating func unlock(_ user: String, feature: String, cost: Int64) -> Answer {
        if unlocks[user, default: [:]][feature] != nil { return .done([balance(user), 1]) }
        var seq: Int?
        if cost > 0 {
            guard debit(user, cost) != nil else { return .refused("insufficient_balance") }
            seq = entry()
        }
        unlocks[user, default: [:]][feature] = Unlock(cost: cost, entrySeq: seq)
        return .done([balance(user), 0])
    }

    /// A share to a user or an address (`pending:<email>`), or a donation to the pool; `id` names the share.
    mutating func transfer(_ user: String, to recipient: String, _ amount: Int64, id: String) -> Answer {
        guard let taken = debit(user, amount) else { return .refused("insufficient_balance") }
        let seq = entry()
        let pending = recipient.hasPrefix("pending:")
        if pending { shares[id] = Share(sender: user, account: recipient, amount: amount, entrySeq: seq) }
        credit(recipient, taken, via: pending ? id : nil)
        return .done([balance(user), balance(recipient)])
    }

    mutating func release(_ account: String, to user: String) -> Answer {
        let held = balance(account)
        guard held > 0 else { return .done([0]) }
        let taken = Self.filled(take(account, held), to: held)
        balances[account] = 0
        releases[account, default: []].append(entry())
        credit(user, taken, via: nil)
        return .done([held])
    }

    mutating func takeBack(_ id: String, by user: String) -> Answer {
        guard let share = shares[id], share.sender == user else { return .refused("not_found") }
        if share.cancelled { return .done([0]) }
        if releases[share.account, default: []].contains(where: { $0 > share.entrySeq }) {
            return .refused("already_received")
        }
        let own = lots[share.account, default: []].filter { $0.via == id }
        let taken: [Lot]
        if own.isEmpty {
            let unnamed = lots[share.account, default: []].filter { $0.via == nil }.reduce(0) { $0 + $1.remaining }
            taken = take(share.account, min(share.amount, unnamed), where: { $0.via == nil })
        } else {
            taken = take(share.account, own.reduce(0) { $0 + $1.remaining }, where: { $0.via == id })
        }
        let keys = taken.reduce(0) { $0 + $1.remaining }
        guard keys > 0 else { return .done([0]) }
        balances[share.account, default: 0] -= keys
        shares[id]?.cancelled = true
        credit(user, taken, via: nil)
        return .done([keys])
    }

    mutating func adjust(_ user: String, _ amount: Int64) -> Answer {
        let before = balance(user)
        if amount < 0, before + amount < 0 { return .refused("insufficient_balance") }
        balances[user] = before + amount
        if amount > 0 {
            credit(user, [Lot(seq: 0, source: nil, remaining: amount)], via: nil, before: before)
        } else {
            _ = take(user, -amount)
        }
        return .done([before + amount])
    }

    /// A store's notice that a purchase was refunded: remembered whether or not it was redeemed (so it never can be
    /// later), and applied as ``refund(_:refunded:paid:)`` when it was. Answers the refund's, or [-1] when nothing was
    /// redeemed.
    mutating func refundNotice(_ reference: String, refunded: Int64, paid: Int64) -> Answer {
        refundedTransactions.insert(reference)
        guard redemptions[reference] != nil else { return .done([-1]) }
        return refund(reference, refunded: refunded, paid: paid)
    }

    /// A refund of `refunded` out of `paid` (cumulative; `refunded >= paid` is the whole purchase) of a redeemed
    /// purchase (an operator's, a reconciliation's). Answers [clawed back, from recipients, debt, unlocks revoked,
    /// already applied].
    mutating func refund(_ reference: String, refunded: Int64, paid: Int64) -> Answer {
        guard var redemption = redemptions[reference] else { return .refused("not_found") }
        refundedTransactions.insert(reference)
        let whole = paid <= 0 || refunded <= 0 || refunded >= paid
        let target = Self.share(of: redemption.granted, refunded: refunded, paid: paid)
        let taken = redemption.refundedKeys
        guard !redemption.whole, target > taken || whole else { return .done([0, 0, 0, 0, 1]) }
        redemption.refundedKeys = max(target, taken)
        redemption.whole = whole
        var answer: [Int64] = [0, 0, 0, 0, 0]
        let due = max(target - taken, 0)
        if due > 0 {
            answer = takeBackPurchase(due, of: reference, owner: redemption.owner)
            if answer[2] > 0 {
                answer[3] = revokeUnlocks(of: redemption.owner, after: redemption.entrySeq)
            }
        }
        let giftTarget = Self.share(of: redemption.community, refunded: refunded, paid: paid)
        let gift = takeSource(reference + "#gift", max(giftTarget - redemption.giftTaken, 0), first: Self.pool)
        let giftKeys = gift.reduce(0) { $0 + $1.keys }
        balances[Self.pool, default: 0] -= giftKeys
        redemption.giftTaken += giftKeys
        redemptions[reference] = redemption
        return .done(answer)
    }

    // MARK: Rules

    /// `ceil(keys × refunded ÷ paid)`, at least 1 and at most `keys`; all of them for a whole refund.
    static func share(of keys: Int64, refunded: Int64, paid: Int64) -> Int64 {
        guard paid > 0, refunded > 0, refunded < paid, keys > 0 else { return keys }
        return min(keys, max((keys * refunded + paid - 1) / paid, 1))
    }

    /// Takes back `due` keys of a purchase: the buyer's first, then every other holder's newest; the rest is debt.
    private mutating func takeBackPurchase(_ due: Int64, of reference: String, owner: String) -> [Int64] {
        let taken = takeSource(reference, due, first: owner)
        var fromOwner: Int64 = 0
        var reversed: Int64 = 0
        for (holder, keys) in taken {
            if holder == owner {
                fromOwner += keys
            } else {
                balances[holder, default: 0] -= keys
                reversed += keys
            }
        }
        let debt = due - taken.reduce(0) { $0 + $1.keys }
        balances[owner, default: 0] -= fromOwner + debt
        if debt > 0 {
            let held = lots[owner, default: []].reduce(0) { $0 + $1.remaining }
            let allowed = max(balance(owner), 0)
            if held > allowed { _ = take(owner, held - allowed) }
        }
        return [due, reversed, debt, 0, 0]
    }

    /// Revokes the owner's paid unlocks made after `seq`, newest first, while the owner is in debt.
    private mutating func revokeUnlocks(of owner: String, after seq: Int) -> Int64 {
        let paid = unlocks[owner, default: [:]].compactMap { feature, unlock in
            unlock.entrySeq.map { (feature, unlock.cost, $0) }
        }
        var revoked: Int64 = 0
        for (feature, cost, entrySeq) in paid.sorted(by: { $0.2 > $1.2 }) where entrySeq > seq {
            let before = balance(owner)
            guard before < 0 else { break }
            unlocks[owner]?[feature] = nil
            balances[owner] = before + cost
            credit(owner, [Lot(seq: 0, source: nil, remaining: cost)], via: nil, before: before)
            revoked += 1
        }
        return revoked
    }

    /// Takes `amount` keys if the balance allows it: the newest lots first, what they lack as keys of no source.
    private mutating func debit(_ user: String, _ amount: Int64) -> [Lot]? {
        guard balance(user) >= amount else { return nil }
        balances[user, default: 0] -= amount
        return Self.filled(take(user, amount), to: amount)
    }

    /// Credits lots (already counted in the balance, or counted now when `before` is nil): a debt is repaid first.
    private mutating func credit(_ account: String, _ parts: [Lot], via: String?, before: Int64? = nil) {
        let keys = parts.reduce(0) { $0 + $1.remaining }
        let start = before ?? balance(account)
        if before == nil { balances[account] = start + keys }
        var debt = max(-start, 0)
        for part in parts where part.remaining > 0 {
            let repaid = min(debt, part.remaining)
            debt -= repaid
            if part.remaining > repaid { addLot(account, source: part.source, keys: part.remaining - repaid, via: via) }
        }
    }

    private mutating func addLot(_ account: String, source: String?, keys: Int64, via: String? = nil) {
        nextLot += 1
        lots[account, default: []].append(Lot(seq: nextLot, source: source, remaining: keys, via: via))
    }

    private mutating func entry() -> Int {
        nextEntry += 1
        return nextEntry
    }

    /// Takes up to `amount` keys from the account's newest lots that `filter` allows; returns them merged by source
    /// in the order taken.
    private mutating func take(_ account: String, _ amount: Int64, where filter: (Lot) -> Bool = { _ in true })
        -> [Lot]
    {
        var wanted = amount
        var taken: [Lot] = []
        var held = lots[account, default: []]
        for index in held.indices.reversed() where wanted > 0 && held[index].remaining > 0 && filter(held[index]) {
            let keys = min(wanted, held[index].remaining)
            held[index].remaining -= keys
            wanted -= keys
            if let last = taken.last, last.source == held[index].source {
                taken[taken.count - 1].remaining += keys
            } else {
                taken.append(Lot(seq: 0, source: held[index].source, remaining: keys))
            }
        }
        lots[account] = held
        return taken
    }

    /// Takes up to `amount` keys of one source wherever they are: `first`'s lots first, then every lot newest first.
    private mutating func takeSource(_ source: String, _ amount: Int64, first: String) -> [(
        holder: String, keys: Int64
    )] {
        let found = lots.flatMap { account, held in
            held.filter { $0.source == source && $0.remaining > 0 }.map { (account, $0.seq) }
        }.sorted { ($0.0 == first ? 0 : 1, -$0.1) < ($1.0 == first ? 0 : 1, -$1.1) }
        var wanted = amount
        var taken: [(holder: String, keys: Int64)] = []
        for (account, seq) in found where wanted > 0 {
            guard let index = lots[account]?.firstIndex(where: { $0.seq == seq }) else { continue }
            let keys = min(wanted, lots[account]![index].remaining)
            lots[account]![index].remaining -= keys
            wanted -= keys
            if let known = taken.firstIndex(where: { $0.holder == account }) {
                taken[known].keys += keys
            } else {
                taken.append((account, keys))
            }
        }
        return taken
    }

    static func filled(_ taken: [Lot], to amount: Int64) -> [Lot] {
        let short = amount - taken.reduce(0) { $0 + $1.remaining }
        return short > 0 ? taken + [Lot(seq: 0, source: nil, remaining: short)] : taken
    }
}
