import Crypto
import Foundation
import Synchronization

/// Verified signing chains, so that a warm verification costs one ECDSA check.
///
/// Keyed by the SHA-256 of the JWS protected header, which carries `alg` and the whole `x5c` chain: an identical
/// header is an identical chain. An entry answers only while the validation time lies inside the validity window
/// of every certificate of the chain (the latest `notBefore` to the earliest `notAfter`), which is exactly when
/// the RFC 5280 expiry check would pass again. Bounded: the least recently used entry makes room.
final class AppleChainCache: Sendable {
    /// A header's SHA-256 as four words: hashing and comparing it is trivial (a cache key is not a secret, so it
    /// needs no constant-time comparison).
    struct Key: Hashable, Sendable {
        var words: (UInt64, UInt64, UInt64, UInt64)

        init(_ digest: SHA256Digest) {
            var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            digest.withUnsafeBytes { bytes in
                words = (
                    bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                    bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                    bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
                    bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                )
            }
            self.words = words
        }

        static func == (lhs: Key, rhs: Key) -> Bool { lhs.words == rhs.words }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    struct Statistics: Sendable, Hashable {
        var hits = 0
        var misses = 0
        var validations = 0
        var entries = 0
    }

    private struct Entry {
        var publicKey: P256.Signing.PublicKey
        var notValidBefore: Date
        var notValidAfter: Date
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var tick: UInt64 = 0
        var statistics = Statistics()
        /// The last header hashed and its digest: almost every JWS repeats the previous header (Apple signs with
        /// one leaf for months), and comparing 2.5 KB costs far less than hashing it.
        var lastHeader: [UInt8] = []
        var lastKey: Key?
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The cache key of a protected header: its SHA-256 (remembered for the last header seen).
    func key(forHeader header: UnsafeRawBufferPointer) -> Key {
        let remembered: Key? = state.withLock { state in
            guard let key = state.lastKey, state.lastHeader.count == header.count, let base = header.baseAddress
            else { return nil }
            return state.lastHeader.withUnsafeBytes { memcmp($0.baseAddress!, base, header.count) == 0 } ? key : nil
        }
        if let remembered { return remembered }
        let key = Key(SHA256.hash(data: header))
        state.withLock { state in
            state.lastHeader = Array(header)
            state.lastKey = key
        }
        return key
    }

    /// The leaf key of a chain verified earlier, whatever the time (not counted as a hit or a miss): the key to
    /// check a signature with before the payload, which dates the chain check, is read.
    func cachedKey(for key: Key) -> P256.Signing.PublicKey? {
        state.withLock { $0.entries[key]?.publicKey }
    }

    /// The leaf key of a chain verified earlier, if its validity window covers `time`.
    func publicKey(for key: Key, at time: Date) -> P256.Signing.PublicKey? {
        state.withLock { state in
            state.tick &+= 1
            guard let index = state.entries.index(forKey: key),
                state.entries.values[index].notValidBefore <= time, time <= state.entries.values[index].notValidAfter
            else {
                state.statistics.misses += 1
                return nil
            }
            state.entries.values[index].lastUse = state.tick
            state.statistics.hits += 1
            return state.entries.values[index].publicKey
        }
    }

    /// Remembers a verified chain's leaf key and validity window.
    func insert(
        _ publicKey: P256.Signing.PublicKey,
        for key: Key,
        validFrom notValidBefore: Date,
        until notValidAfter: Date
    ) {
        guard capacity > 0 else { return }
        state.withLock { state in
            state.tick &+= 1
            if state.entries[key] == nil, state.entries.count >= capacity,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                state.entries.removeValue(forKey: oldest)
            }
            state.entries[key] = Entry(
                publicKey: publicKey,
                notValidBefore: notValidBefore,
                notValidAfter: notValidAfter,
                lastUse: state.tick
            )
        }
    }

    /// Counts one full chain validation.
    func recordValidation() {
        state.withLock { $0.statistics.validations += 1 }
    }

    var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.entries = state.entries.count
            return statistics
        }
    }
}
