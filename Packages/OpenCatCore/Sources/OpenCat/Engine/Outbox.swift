import Foundation
import Logging
import OpenCatCore
import Synchronization

/// The key of an outbox entry, which is also its server idempotency key: one scheme, always bound to the user.
///
/// A purchase is keyed by the store's transaction id (else its proof's fingerprint), so it is delivered at most
/// once; a store update (a refund reuses the purchase's transaction id) by its proof's fingerprint, so the
/// purchase's entry cannot swallow it.
struct OutboxID: Hashable, Sendable, CustomStringConvertible {
    let rawValue: String

    /// The id of a purchase.
    static func purchase(_ proof: PurchaseProof, user: String) -> OutboxID {
        OutboxID(rawValue: "\(user)|\(proof.deduplicationKey)")
    }

    /// The id of a store update (renewal, refund, purchase elsewhere).
    static func update(_ proof: PurchaseProof, user: String) -> OutboxID {
        OutboxID(rawValue: "\(user)|update|\(proof.store.rawValue):#\(proof.fingerprint)")
    }

    var description: String { "outbox entry" }
}

/// A proof as kept in the outbox (sealed by the cache).
struct OutboxPayload: Codable, Sendable {
    var store: Store
    var kind: PurchaseProof.Kind
    var token: String
    var productId: String?
    var transactionId: String?
    var context: [String: String]

    init(_ proof: PurchaseProof) {
        store = proof.store
        kind = proof.kind
        token = proof.token.revealed
        productId = proof.productId
        transactionId = proof.transactionId
        context = proof.context
    }

    var proof: PurchaseProof {
        PurchaseProof(
            store: store,
            kind: kind,
            token: Secret(token),
            productId: productId,
            transactionId: transactionId,
            context: context
        )
    }
}

/// The durable outbox of proofs still to be delivered, over the encrypted cache.
///
/// Every failure on this path is logged and counted (``failureCount``), never dropped with `try?`. An entry that
/// failed ``maximumAttempts`` times for a reason that waiting does not cure (the server refused the credentials,
/// answered something unreadable) is *stalled*: background syncs skip it, an explicit purchase or restore of the
/// same transaction tries it again. Network failures, 429 and 5xx do not count: an offline device never stalls a
/// paid purchase.
struct Outbox: Sendable {
    /// One entry, typed.
    struct Entry: Sendable {
        var id: OutboxID
        /// The proof, or nil when the sealed payload cannot be decoded (kept in place, counted as unreadable).
        var payload: OutboxPayload?
        /// Counted failed attempts (capped at ``Outbox/maximumAttempts``).
        var attempts: Int

        var isStalled: Bool { attempts >= Outbox.maximumAttempts }
    }

    /// Counted failures after which an entry is stalled.
    static let maximumAttempts = 5

    let cache: EncryptedCache
    let logger: Logger
    private let failures = Failures()

    private final class Failures: Sendable {
        let count = Mutex(0)
    }

    init(cache: EncryptedCache, logger: Logger) {
        self.cache = cache
        self.logger = logger
    }

    /// Failures on the durable path since the SDK started (writes, reads, state changes).
    var failureCount: Int { failures.count.withLock { $0 } }

    private func failed(_ what: Logger.Message, _ error: any Error) {
        failures.count.withLock { $0 += 1 }
        logger.error(what, metadata: ["error": "\(Delivery.reason(error))"])
    }

    /// Saves a proof; returns whether it is now in the outbox (newly or already).
    @discardableResult
    func enqueue(_ proof: PurchaseProof, id: OutboxID) -> Bool {
        do {
            try cache.enqueue(id: id.rawValue, payload: try JSONCoding.encoder.encode(OutboxPayload(proof)))
            return true
        } catch {
            failed("a purchase could not be saved to the outbox", error)
            return false
        }
    }

    /// The pending entries in order and how many of them cannot be read; nil when the outbox cannot be read.
    func pending() -> (entries: [Entry], unreadable: Int)? {
        do {
            let rows = try cache.pendingOutbox()
            var unreadable = try cache.unreadableOutboxCount()
            let entries = rows.map { row -> Entry in
                let payload = try? JSONCoding.decoder.decode(OutboxPayload.self, from: row.payload)
                if payload == nil {
                    // Kept in place (a later version may read it) and counted, never silently skipped.
                    unreadable += 1
                    logger.error("outbox entry undecodable; kept in place")
                }
                return Entry(id: OutboxID(rawValue: row.id), payload: payload, attempts: row.attempts)
            }
            return (entries, unreadable)
        } catch {
            failed("outbox unreadable", error)
            return nil
        }
    }

    /// The state of an entry; nil when there is none. A read failure is logged, counted and taken as "none", so
    /// the delivery is attempted (the server's idempotency key makes that safe).
    func state(of id: OutboxID) -> (state: EncryptedCache.OutboxState, attempts: Int)? {
        do { return try cache.outboxEntry(id: id.rawValue) } catch {
            failed("outbox state unreadable", error)
            return nil
        }
    }

    /// Marks an entry delivered or rejected.
    func complete(_ id: OutboxID, as state: EncryptedCache.OutboxState) {
        do { try cache.complete(id: id.rawValue, as: state) } catch { failed("outbox update failed", error) }
    }

    /// Records a failed attempt; only failures that waiting does not cure count towards ``maximumAttempts``.
    func recordFailure(_ id: OutboxID, counted: Bool) {
        guard counted else { return }
        do {
            let attempts = try cache.recordFailedAttempt(id: id.rawValue, cap: Self.maximumAttempts)
            if attempts >= Self.maximumAttempts {
                logger.warning("a purchase is stalled in the outbox", metadata: ["attempts": "\(attempts)"])
            }
        } catch {
            failed("outbox attempt not recorded", error)
        }
    }

    /// Makes a rejected or stalled entry pending again with a fresh attempt count (an explicit new attempt).
    func reopen(_ id: OutboxID, proof: PurchaseProof) {
        do { try cache.reopen(id: id.rawValue, payload: try JSONCoding.encoder.encode(OutboxPayload(proof))) } catch {
            failed("a purchase could not be reopened", error)
        }
    }
}
