import Foundation
public import Logging
import OpenCatCore
import Synchronization

/// The durable outbox of one component (a namespace) over an ``EncryptedCache``: work written before it is
/// attempted, delivered at most once, per owner.
///
/// - Entries are scoped: a reader sees only its namespace and the owner it asks for (filtered in SQL), so after a
///   user switch one user's undelivered purchase is never delivered under another's name, and the key vault's
///   spends never show up in the SDK's sync.
/// - ``deliver(id:payload:explicit:alreadyDone:attempt:)`` runs one attempt per entry at a time (concurrent callers
///   share its result, see ``SharedAttempts``) and records its verdict.
/// - Every failure on the durable path is logged and counted (``failureCount``), never dropped. An entry that failed
///   ``maximumAttempts`` times for a reason waiting does not cure is *stalled*: background syncs skip it, an explicit
///   attempt (a purchase, a restore, a retry) opens it again.
public final class DurableOutbox<Payload: Codable & Sendable>: Sendable {
    /// One entry, typed.
    public struct Entry: Sendable {
        /// The entry's id (also its idempotency key at the destination).
        public var id: String
        /// The payload, or `nil` when the sealed payload cannot be decoded (kept in place, counted as unreadable).
        public var payload: Payload?
        /// Counted failed attempts (capped at ``DurableOutbox/maximumAttempts``).
        public var attempts: Int
        /// Whether the entry waits for an explicit attempt.
        public var isStalled: Bool
    }

    /// The verdict of one delivery attempt, and the result handed to every caller that waited for it.
    public enum Verdict<Result: Sendable>: Sendable {
        /// Delivered: the entry is marked delivered and never attempted again.
        case delivered(Result)
        /// Refused for good: the entry is marked rejected; only an explicit attempt opens it again.
        case rejected(Result)
        /// Not delivered now; `counted` failures (those waiting does not cure) count towards a stall.
        case deferred(Result, counted: Bool)
        /// Nothing to record (the attempt found nothing to do).
        case unchanged(Result)
    }

    /// The component whose entries these are (for example `opencat`, `keyvault`).
    public let namespace: String
    /// Counted failures after which an entry is stalled.
    public let maximumAttempts: Int
    /// The cache holding the entries.
    public let cache: EncryptedCache
    private let logger: Logger
    private let failures = Mutex(0)

    /// An outbox over a cache.
    /// - Parameters:
    ///   - cache: the encrypted cache (one file may hold several namespaces).
    ///   - namespace: the component writing the entries.
    ///   - maximumAttempts: counted failures after which an entry is stalled.
    ///   - logger: receives outbox events (never payloads).
    public init(cache: EncryptedCache, namespace: String, maximumAttempts: Int = 5, logger: Logger) {
        self.cache = cache
        self.namespace = namespace
        self.maximumAttempts = maximumAttempts
        self.logger = logger
    }

    /// Failures on the durable path since this outbox was made (writes, reads, state changes).
    public var failureCount: Int { failures.withLock { $0 } }

    private func failed(_ what: Logger.Message, _ error: any Error) {
        failures.withLock { $0 += 1 }
        logger.error(what, metadata: ["error": "\(EncryptedCache.describe(error))", "namespace": "\(namespace)"])
    }

    /// Saves an entry for an owner unless one with the same id exists.
    /// - Returns: whether the entry was added (`false`: it was already there).
    /// - Throws: `OpenCatError` `cache` when it cannot be written (also logged and counted).
    @discardableResult
    public func enqueue(_ payload: Payload, id: String, owner: String) throws -> Bool {
        do {
            let data = try JSONCoding.encoder.encode(payload)
            return try cache.insertOutboxRow(
                id: id,
                payload: data,
                scope: cache.outboxScope(namespace: namespace, owner: owner)
            )
        } catch {
            failed("an entry could not be saved to the outbox", error)
            throw OpenCatError(.cache, "cannot write to the outbox: \(EncryptedCache.describe(error))")
        }
    }

    /// The pending entries of an owner, oldest first, and how many entries cannot be read (kept in place).
    /// - Returns: `nil` when the outbox cannot be read (logged and counted).
    public func pending(owner: String) -> (entries: [Entry], unreadable: Int)? {
        do {
            let (rows, unreadableRows) = try cache.pendingOutboxRows(
                scope: cache.outboxScope(namespace: namespace, owner: owner)
            )
            var unreadable = unreadableRows
            let entries = rows.map { row -> Entry in
                let payload = try? JSONCoding.decoder.decode(Payload.self, from: row.payload)
                if payload == nil {
                    // Kept in place (a later version may read it) and counted, never silently skipped.
                    unreadable += 1
                    logger.error("outbox entry undecodable; kept in place", metadata: ["namespace": "\(namespace)"])
                }
                return Entry(
                    id: row.id,
                    payload: payload,
                    attempts: row.attempts,
                    isStalled: row.attempts >= maximumAttempts
                )
            }
            return (entries, unreadable)
        } catch {
            failed("outbox unreadable", error)
            return nil
        }
    }

    /// The state and counted attempts of an entry; `nil` when there is none. A read failure is logged, counted and
    /// taken as "none", so the delivery is attempted (the destination's idempotency key makes that safe).
    public func state(of id: String) -> (state: EncryptedCache.OutboxState, attempts: Int)? {
        do { return try cache.outboxRowState(id: id) } catch {
            failed("outbox state unreadable", error)
            return nil
        }
    }

    /// Marks an entry delivered or rejected.
    public func complete(_ id: String, as state: EncryptedCache.OutboxState) {
        do { try cache.completeOutboxRow(id: id, as: state) } catch { failed("outbox update failed", error) }
    }

    /// Records a failed attempt; only failures that waiting does not cure count towards ``maximumAttempts``.
    public func recordFailure(_ id: String, counted: Bool) {
        guard counted else { return }
        do {
            let attempts = try cache.countOutboxFailure(id: id, cap: maximumAttempts)
            if attempts >= maximumAttempts {
                logger.warning(
                    "an entry is stalled in the outbox",
                    metadata: ["attempts": "\(attempts)", "namespace": "\(namespace)"]
                )
            }
        } catch {
            failed("outbox attempt not recorded", error)
        }
    }

    /// Makes a rejected or stalled entry pending again with a fresh payload and no counted attempts.
    public func reopen(_ id: String, payload: Payload) {
        do { try cache.reopenOutboxRow(id: id, payload: try JSONCoding.encoder.encode(payload)) } catch {
            failed("an entry could not be reopened", error)
        }
    }

    /// Delivers an entry at most once: concurrent callers share one attempt, a delivered entry is not attempted
    /// again, and a rejected or stalled one only on an explicit attempt (which reopens it with `payload`).
    /// - Parameters:
    ///   - id: the entry.
    ///   - payload: what an explicit attempt reopens the entry with.
    ///   - explicit: a new attempt the user asked for (a purchase, a restore, a retry).
    ///   - alreadyDone: the result when nothing is attempted (delivered, or rejected and not explicit).
    ///   - attempt: one delivery; its verdict is recorded after it returns (so state it saves comes first: a crash
    ///     in between delivers once more, which the idempotency key makes harmless, and never loses the entry).
    /// - Returns: the attempt's result, and whether this caller joined an attempt another caller started (a report
    ///   counts each delivery once by counting only the attempts its caller started).
    public func deliver<Result: Sendable>(
        id: String,
        payload: Payload? = nil,
        explicit: Bool = false,
        alreadyDone: Result,
        attempt: @escaping @Sendable () async -> Verdict<Result>
    ) async -> (result: Result, joined: Bool) {
        let key = cache.fileURL.path + "#outbox#" + id
        let outcome = await SharedAttempts.shared.run(key: key) { () async -> Result in
            if let (state, attempts) = self.state(of: id) {
                switch state {
                case .delivered:
                    return alreadyDone
                case .rejected:
                    guard explicit, let payload else { return alreadyDone }
                    self.reopen(id, payload: payload)
                case .pending:
                    if explicit, attempts >= self.maximumAttempts, let payload { self.reopen(id, payload: payload) }
                }
            }
            switch await attempt() {
            case .delivered(let result):
                self.complete(id, as: .delivered)
                return result
            case .rejected(let result):
                self.complete(id, as: .rejected)
                return result
            case .deferred(let result, let counted):
                self.recordFailure(id, counted: counted)
                return result
            case .unchanged(let result):
                return result
            }
        }
        return (outcome.result, !outcome.started)
    }
}
