import Crypto
public import Foundation
import GRDB
public import Logging
import OpenCatCore

/// A small persistent store on SQLite (GRDB) whose every value is sealed with AES-256-GCM.
///
/// - Values are JSON, sealed with a key derived from the ``KeyProvider``'s key and bound (as AES-GCM
///   associated data) to the slot they were written to, so a value moved to another slot fails to open.
/// - Slot names are replaced by an HMAC of the name, so the file holds no plaintext user, product or
///   transaction id, and no proof.
/// - ``DurableOutbox`` keeps work that must not be lost (purchase proofs, spends still to be delivered) in one
///   table: entries are written durably, scoped to a namespace and an owner, delivered at most once (an entry
///   marked delivered is never handed out again, and enqueueing the same id again is a no-op), and survive
///   restarts.
/// - A file that cannot be opened, fails SQLite's integrity check, or was sealed with another key is moved
///   aside (`<name>.corrupt-<timestamp>`) and a new one is created. Outbox entries that can still be opened
///   are carried over; the rest stay in the quarantined file. ``recovery`` reports what happened.
public final class EncryptedCache: Sendable {
    /// What happened when a damaged cache was replaced.
    public struct Recovery: Sendable, Hashable {
        /// Where the damaged file was moved.
        public var quarantinedFile: URL
        /// Why it was replaced.
        public var reason: String
        /// Outbox entries carried over into the new file.
        public var salvagedOutboxEntries: Int
        /// Outbox entries that could not be opened; they remain in the quarantined file.
        public var unrecoverableOutboxEntries: Int
    }

    /// The state of an outbox entry (see ``DurableOutbox``).
    public enum OutboxState: String, Sendable, Hashable {
        /// Waiting for delivery.
        case pending
        /// Delivered; kept so the same id is never delivered again.
        case delivered
        /// Refused for good by its destination; kept for diagnosis.
        case rejected
    }

    /// The cache file.
    public let fileURL: URL
    /// Set when the file was damaged and replaced while opening.
    public let recovery: Recovery?

    let database: DatabaseQueue
    private let sealingKey: SymmetricKey
    private let namingKey: SymmetricKey
    let logger: Logger

    private static let canarySlot = "opencat.cache.canary"
    private static let canaryValue = "opencat-cache-v1"

    /// Opens (or creates) a cache, replacing a damaged file.
    /// - Parameters:
    ///   - fileURL: the SQLite file.
    ///   - keyProvider: supplies the sealing key.
    ///   - logger: receives cache events (never values).
    ///   - now: the date used to name a quarantined file.
    ///   - busyTimeout: how long a write waits for another connection (another process) holding the lock.
    /// - Throws: `OpenCatError` with code `cache` when no usable file can be created, or when the file cannot be
    ///   opened for a reason that is not damage (busy past the timeout, no permission, no space): then the file
    ///   is left as it is.
    public init(
        fileURL: URL,
        keyProvider: any KeyProvider,
        logger: Logger,
        now: Date = Date(),
        busyTimeout: Duration = .seconds(5)
    ) throws {
        self.fileURL = fileURL
        self.logger = logger
        let master: SymmetricKey
        do { master = try keyProvider.cacheKey() } catch {
            throw OpenCatError(.cache, "the cache key is unavailable", underlying: error)
        }
        sealingKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: master,
            info: Data("opencat.cache.seal.v1".utf8),
            outputByteCount: 32
        )
        namingKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: master,
            info: Data("opencat.cache.name.v1".utf8),
            outputByteCount: 32
        )
        try FileManager.default.createDirectory(
            at: fileURL.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        // Owner-only from the first byte: SQLite opens an existing empty file as an empty database.
        // O_EXCL: never truncates a file that exists.
        createOwnerOnlyFile(fileURL.path)

        do {
            database = try Self.openDatabase(
                fileURL,
                sealingKey: sealingKey,
                namingKey: namingKey,
                busyTimeout: busyTimeout.timeInterval
            )
            recovery = nil
        } catch  where !Self.isDamage(error) {
            // Busy beyond the timeout, locked, unreadable, out of space: not damage. The file is left alone (its
            // outbox may hold paid purchases) and the caller learns why.
            throw OpenCatError(.cache, "cannot open the cache: \(Self.describe(error))")
        } catch {
            let reason = Self.describe(error)
            let quarantined = Self.quarantineURL(for: fileURL, now: now)
            try? Self.moveAside(fileURL, to: quarantined)
            logger.error("cache damaged; quarantined and rebuilt", metadata: ["reason": "\(reason)"])
            do {
                database = try Self.openDatabase(
                    fileURL,
                    sealingKey: sealingKey,
                    namingKey: namingKey,
                    busyTimeout: busyTimeout.timeInterval
                )
            } catch {
                throw OpenCatError(.cache, "cannot create a new cache file: \(Self.describe(error))")
            }
            let (salvaged, lost) = Self.salvageOutbox(
                from: quarantined,
                into: database,
                sealingKey: sealingKey,
                namingKey: namingKey
            )
            recovery = Recovery(
                quarantinedFile: quarantined,
                reason: reason,
                salvagedOutboxEntries: salvaged,
                unrecoverableOutboxEntries: lost
            )
        }
    }

    /// Whether an error opening the cache means the file is damaged (or sealed with another key): only then is it
    /// quarantined. SQLite's BUSY and LOCKED (another connection holds the lock), I/O, permission and space errors
    /// are not damage.
    static func isDamage(_ error: any Error) -> Bool {
        if let error = error as? DatabaseError {
            return error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
        }
        if let error = error as? OpenCatError { return error.code == .cache }  // integrity or key check
        return false
    }

    // MARK: Values

    /// Reads a value.
    /// - Returns: the value, or `nil` if absent or if it cannot be opened (a damaged value is removed and
    ///   logged: cached values can always be fetched again).
    public func value<Value: Decodable>(_ type: Value.Type, forKey key: String) -> Value? {
        let slot = slotName(key)
        let sealed: Data?
        do { sealed = try sealedValue(inSlot: slot) } catch {
            logger.warning("cache read failed", metadata: ["error": "\(Self.describe(error))"])
            return nil
        }
        guard let sealed else {
            logger.debug("cache miss", metadata: ["slot": "\(slot.prefix(12))"])
            return nil
        }
        do {
            let plain = try open(sealed, slot: slot)
            logger.debug("cache hit", metadata: ["slot": "\(slot.prefix(12))"])
            return try JSONCoding.decoder.decode(Value.self, from: plain)
        } catch {
            logger.warning("cache value unreadable; dropped", metadata: ["slot": "\(slot.prefix(12))"])
            _ = try? database.write { db in try db.execute(sql: "DELETE FROM kv WHERE slot = ?", arguments: [slot]) }
            return nil
        }
    }

    /// Writes a value durably.
    /// - Throws: `OpenCatError` (`cache`) if it cannot be written.
    public func setValue<Value: Encodable>(_ value: Value, forKey key: String) throws {
        let slot = slotName(key)
        do {
            let sealed = try seal(try JSONCoding.encoder.encode(value), slot: slot)
            try database.write { db in
                try db.execute(
                    sql:
                        "INSERT INTO kv(slot, value) VALUES (?, ?) ON CONFLICT(slot) DO UPDATE SET value = excluded.value",
                    arguments: [slot, sealed]
                )
            }
        } catch {
            throw OpenCatError(.cache, "cannot write to the cache: \(Self.describe(error))")
        }
    }

    /// A stored value, strictly: nil only when there is none; a read or decode failure throws and leaves the value
    /// in place (for state that must never be replaced by an empty default because of a busy disk or a newer
    /// format).
    /// - Throws: `OpenCatError` `cache`.
    public func existingValue<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
        let slot = slotName(key)
        let sealed: Data?
        do { sealed = try sealedValue(inSlot: slot) } catch {
            throw OpenCatError(.cache, "the cache could not be read: \(Self.describe(error))")
        }
        guard let sealed else { return nil }
        do { return try JSONCoding.decoder.decode(Value.self, from: try open(sealed, slot: slot)) } catch {
            throw OpenCatError(.cache, "a cached value could not be opened or decoded; it is left in place")
        }
    }

    /// Removes a value.
    public func removeValue(forKey key: String) throws {
        let slot = slotName(key)
        try database.write { db in try db.execute(sql: "DELETE FROM kv WHERE slot = ?", arguments: [slot]) }
    }

    // MARK: Internals

    /// The sealed bytes in a slot, if any (one read shared by ``value(_:forKey:)`` and ``existingValue(_:forKey:)``).
    func sealedValue(inSlot slot: String) throws -> Data? {
        try database.read { db in
            try Data.fetchOne(db, sql: "SELECT value FROM kv WHERE slot = ?", arguments: [slot])
        }
    }

    struct SealedOutbox: Codable {
        var id: String
        var payload: Data
    }

    func slotName(_ key: String) -> String { Self.slotName(key, namingKey: namingKey) }

    static func slotName(_ key: String, namingKey: SymmetricKey) -> String {
        Fingerprint.lowercaseHex(HMAC<SHA256>.authenticationCode(for: Data(key.utf8), using: namingKey))
    }

    func seal(_ plain: Data, slot: String) throws -> Data { try Self.seal(plain, slot: slot, key: sealingKey) }
    func open(_ sealed: Data, slot: String) throws -> Data { try Self.openSealed(sealed, slot: slot, key: sealingKey) }

    static func seal(_ plain: Data, slot: String, key: SymmetricKey) throws -> Data {
        guard let combined = try AES.GCM.seal(plain, using: key, authenticating: Data(slot.utf8)).combined else {
            throw OpenCatError(.cache, "sealing produced no output")
        }
        return combined
    }

    static func openSealed(_ sealed: Data, slot: String, key: SymmetricKey) throws -> Data {
        try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key, authenticating: Data(slot.utf8))
    }

    private static func openDatabase(
        _ url: URL,
        sealingKey: SymmetricKey,
        namingKey: SymmetricKey,
        busyTimeout: TimeInterval
    ) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = "OpenCatCache"
        // Another connection holding the lock is waited for, not mistaken for damage.
        configuration.busyMode = .timeout(busyTimeout)
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        try queue.write { db in
            let check = try String.fetchOne(db, sql: "PRAGMA quick_check")
            guard check == "ok" else { throw OpenCatError(.cache, "integrity check failed: \(check ?? "no answer")") }
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS kv (slot TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL);
                    CREATE TABLE IF NOT EXISTS outbox (
                        slot TEXT PRIMARY KEY NOT NULL, payload BLOB NOT NULL, state TEXT NOT NULL,
                        attempts INTEGER NOT NULL, seq INTEGER NOT NULL);
                    """
            )
            try migrateOutboxScope(db)
            let slot = slotName(canarySlot, namingKey: namingKey)
            if let sealed = try Data.fetchOne(db, sql: "SELECT value FROM kv WHERE slot = ?", arguments: [slot]) {
                guard (try? openSealed(sealed, slot: slot, key: sealingKey)) == Data(canaryValue.utf8) else {
                    throw OpenCatError(.cache, "the cache was sealed with a different key")
                }
            } else {
                let existing = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM kv") ?? 0
                guard existing == 0 else {
                    throw OpenCatError(
                        .cache,
                        "the cache was sealed with a different key (no key check value for this key)"
                    )
                }
                try db.execute(
                    sql: "INSERT INTO kv(slot, value) VALUES (?, ?)",
                    arguments: [slot, try seal(Data(canaryValue.utf8), slot: slot, key: sealingKey)]
                )
            }
            try adoptUnscopedOutboxRows(db, sealingKey: sealingKey, namingKey: namingKey)
        }
        return queue
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? OpenCatError { return error.message }
        if let error = error as? DatabaseError { return "SQLite error \(error.resultCode.rawValue)" }
        return String(describing: type(of: error))
    }
}

/// Creates an empty file with mode 0600 unless one exists (`O_EXCL` never truncates an existing file).
private func createOwnerOnlyFile(_ path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    if fd >= 0 { close(fd) }
}
