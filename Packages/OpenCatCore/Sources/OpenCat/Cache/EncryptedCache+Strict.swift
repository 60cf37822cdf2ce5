import Foundation
import GRDB
import OpenCatCore

extension EncryptedCache {
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

    /// The sealed bytes in a slot, if any (one read shared by ``value(_:forKey:)`` and ``existingValue(_:forKey:)``).
    func sealedValue(inSlot slot: String) throws -> Data? {
        try database.read { db in
            try Data.fetchOne(db, sql: "SELECT value FROM kv WHERE slot = ?", arguments: [slot])
        }
    }
}
