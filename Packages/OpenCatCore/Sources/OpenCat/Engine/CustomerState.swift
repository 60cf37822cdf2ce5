import Foundation
import OpenCatCore
import OpenCatServerAPI

/// What is persisted per user (sealed in the cache), and the pure rules that keep its reference time honest: the
/// high-water mark of device time, the confirmed time, and the trusted reading that corrects a clock running ahead.
struct CustomerState: Codable, Sendable, Equatable {
    var transactions: [TransactionInfo]
    var entitlementMap: EntitlementMap
    var firstSeenAt: Date
    var lastConfirmed: Date?
    /// The highest (corrected) device time seen: evaluation never goes back before it, even after a restart with
    /// the clock set back (sealed in the cache with the rest).
    var deviceHighWater: Date?
    /// The latest trusted reading of the real time and the device time at that moment: device time is corrected
    /// by their difference before it may raise ``deviceHighWater``.
    var trustAnchor: TrustAnchor?

    /// A trusted reading of the current time (a store's HTTP `Date`, a server's `requestDate`) and the device's
    /// clock when it arrived.
    struct TrustAnchor: Codable, Sendable, Equatable {
        var trusted: Date
        var device: Date
    }

    /// How far a trusted time may lie ahead of the device clock before it is capped (and how far the high-water
    /// mark may lie ahead of a trusted current time before it is brought back to it).
    static let maximumClockSkew: TimeInterval = 300

    /// How far the high-water mark may run ahead of the latest confirmed time (35 days: a monthly renewal is
    /// confirmed well within it). It bounds both what a wrong clock can cost a paying user and how long past its
    /// last confirmation an offline device keeps rollback protection.
    static let maximumHighWaterLead: TimeInterval = 35 * 86_400

    /// An empty state for a new user.
    static func empty(at now: Date) -> CustomerState {
        CustomerState(transactions: [], entitlementMap: [:], firstSeenAt: now, lastConfirmed: nil)
    }

    /// The floor of the reference time: the later of the confirmed time and the high-water mark.
    var floor: Date? { [lastConfirmed, deviceHighWater].compactMap { $0 }.max() }

    /// The customer info at the reference time for a device time.
    func evaluate(appUserId: String, at deviceNow: Date, accepting environments: Set<TransactionInfo.Environment>)
        -> CustomerInfo
    {
        let reference = EntitlementEngine.referenceTime(deviceNow: deviceNow, lastConfirmed: floor)
        return CustomerInfo(
            appUserId: appUserId,
            entitlements: EntitlementEngine.entitlements(
                for: transactions,
                map: entitlementMap,
                at: reference,
                acceptedEnvironments: environments,
                confirmedAt: lastConfirmed
            ),
            allTransactions: transactions.sorted { $0.purchaseDate > $1.purchaseDate },
            firstSeenAt: firstSeenAt,
            evaluatedAt: reference
        )
    }

    /// Raises the high-water mark to the device time, corrected by the latest trusted reading (so a clock that was
    /// found to run ahead does not drag the mark with it), never further than ``maximumHighWaterLead`` past the
    /// confirmed time. Returns whether the mark moved.
    @discardableResult
    mutating func observe(deviceNow: Date) -> Bool {
        var corrected =
            trustAnchor.map { $0.trusted.addingTimeInterval(deviceNow.timeIntervalSince($0.device)) }
            ?? deviceNow
        // A clock that ran ahead with no current time to correct it (an offline App Store JWS carries none) locks
        // no one out for longer than the lead.
        if let lastConfirmed { corrected = min(corrected, lastConfirmed.addingTimeInterval(Self.maximumHighWaterLead)) }
        guard corrected > (deviceHighWater ?? .distantPast) else { return false }
        deviceHighWater = corrected
        return true
    }

    /// Takes in a store's or server's times. `confirmedAt` (a signed date, a response time) is a lower bound of the
    /// real time: it may raise the confirmed time, capped at the device's now plus ``maximumClockSkew`` so that one
    /// bogus date cannot lock a user out. `currentTime` (an HTTP `Date`, a server's `requestDate`) is a reading of
    /// the real time now: it anchors the correction of device time and brings back a high-water mark that a clock
    /// running ahead had pushed past it.
    mutating func confirm(_ confirmedAt: Date?, currentTime: Date? = nil, deviceNow: Date) {
        if let confirmedAt {
            let capped = min(confirmedAt, deviceNow.addingTimeInterval(Self.maximumClockSkew))
            let confirmed = max(lastConfirmed ?? capped, capped)
            lastConfirmed = confirmed
            // Keep the high-water mark within its lead over the confirmed time (it may have been raised before the
            // first confirmation, by a clock running ahead).
            let ceiling = confirmed.addingTimeInterval(Self.maximumHighWaterLead)
            if let mark = deviceHighWater, mark > ceiling { deviceHighWater = ceiling }
        }
        if let currentTime {
            trustAnchor = TrustAnchor(trusted: currentTime, device: deviceNow)
            let ceiling = currentTime.addingTimeInterval(Self.maximumClockSkew)
            if let mark = deviceHighWater, mark > ceiling { deviceHighWater = ceiling }
        }
    }

    /// Replaces or adds transactions (same store and transaction id), in one pass.
    mutating func merge(_ incoming: [TransactionInfo]) {
        guard !incoming.isEmpty else { return }
        struct Identity: Hashable {
            var store: Store
            var transactionId: String
        }
        let byIdentity = Dictionary(
            incoming.map { (Identity(store: $0.store, transactionId: $0.transactionId), $0) },
            uniquingKeysWith: { _, last in last }
        )
        transactions.removeAll { byIdentity[Identity(store: $0.store, transactionId: $0.transactionId)] != nil }
        transactions.append(contentsOf: byIdentity.values.sorted { $0.purchaseDate < $1.purchaseDate })
    }

    /// Takes the server's view of the subscriber as the truth.
    mutating func replace(with subscriber: ServerAPI.Subscriber) {
        transactions = subscriber.transactions
        entitlementMap = EntitlementMap(subscriber.entitlementMap.mapValues(Set.init))
        firstSeenAt = subscriber.firstSeenAt
    }
}
