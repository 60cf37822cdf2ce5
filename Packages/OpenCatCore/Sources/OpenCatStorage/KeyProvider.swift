public import Crypto
public import Foundation
public import Logging
import OpenCatCore

/// Supplies the 256-bit key that seals the local cache.
///
/// On Linux the default is ``FileKeyProvider`` (a 32-byte key file, mode 0600). On Apple platforms a Keychain
/// item can conform; the cache never stores the key itself.
public protocol KeyProvider: Sendable {
    /// Returns the cache key, creating it on first use if the provider can.
    /// - Throws: when no key can be read or created.
    func cacheKey() throws -> SymmetricKey
}

/// A fixed key held in memory: for tests, and for apps that derive the key elsewhere.
public struct StaticKeyProvider: KeyProvider {
    private let key: SymmetricKey

    /// Creates a provider for a key.
    public init(key: SymmetricKey) { self.key = key }

    public func cacheKey() -> SymmetricKey { key }
}

/// Keeps the key in a file of exactly 32 random bytes, created with mode 0600 (owner read/write only).
///
/// - A new key is written to a private temporary file and published with `link(2)`, so no reader ever sees a
///   partly written key file and two processes creating one at once agree on one key.
/// - A key file that is being written by another process (shorter than 32 bytes and modified within the last
///   ``settleInterval``) is never set aside: with a `pause` it is waited for, up to ``settleInterval``; without one
///   (the default, so that no thread of Swift concurrency ever blocks) ``cacheKey()`` throws, to be tried again.
/// - A key file that cannot be used (another length after that wait: truncated by a crash or a disk error) is set
///   aside as `<name>.damaged-<milliseconds>` — never deleted — and a new key is made. The cache sealed with the
///   old key then fails its key check and is quarantined and rebuilt, which ``EncryptedCache/recovery`` reports.
/// - An existing key file readable by others is reported in the log (warning) with its mode.
public struct FileKeyProvider: KeyProvider {
    /// Where the key lives.
    public let fileURL: URL
    /// How long a short key file modified this recently is taken to be still being written (default 1 s).
    public let settleInterval: Duration
    private let logger: Logger?
    private let pause: (@Sendable (Duration) -> Void)?

    /// Creates a provider.
    /// - Parameters:
    ///   - fileURL: the key file; created (with its folder) on first use.
    ///   - settleInterval: see ``settleInterval``.
    ///   - logger: where a damaged or over-permissive key file is reported (never the key).
    ///   - pause: how to wait while another process writes the file. Without one (the default) nothing waits: a
    ///     thread of Swift concurrency is never blocked, and ``cacheKey()`` throws an `OpenCatError` with code `cache`
    ///     to try again later instead of setting the other process's file aside.
    public init(
        fileURL: URL,
        settleInterval: Duration = .seconds(1),
        logger: Logger? = nil,
        pause: (@Sendable (Duration) -> Void)? = nil
    ) {
        self.fileURL = fileURL
        self.settleInterval = settleInterval
        self.logger = logger
        self.pause = pause
    }

    public func cacheKey() throws -> SymmetricKey {
        for _ in 0..<3 {
            if let key = try existingKey() { return key }
            if let key = try createKey() { return key }
            // Lost a race with another creator: read theirs on the next pass.
        }
        throw OpenCatError(.cache, "cannot create or read the cache key file")
    }

    /// The key in the file, `nil` when there is no usable file (a damaged one has been set aside by then).
    private func existingKey() throws -> SymmetricKey? {
        guard var data = FileManager.default.contents(atPath: fileURL.path) else { return nil }
        if data.count < 32, isFresh() {
            // Another process is writing it: wait for it to settle, or say so without waiting.
            guard let pause else {
                throw OpenCatError(.cache, "the cache key file is being written by another process; try again")
            }
            let step = Duration.milliseconds(50)
            var waited = Duration.zero
            while data.count < 32, waited < settleInterval {
                pause(step)
                waited += step
                data = FileManager.default.contents(atPath: fileURL.path) ?? data
            }
        }
        guard data.count == 32 else {
            setAside(reason: "the cache key file is \(data.count) bytes long, not 32")
            return nil
        }
        warnIfReadableByOthers()
        return SymmetricKey(data: data)
    }

    /// Writes a new key to a private temporary file and links it into place; `nil` when another process won.
    private func createKey() throws -> SymmetricKey? {
        let folder = fileURL.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: folder,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let key = SymmetricKey(size: .bits256)
        let temporary = folder.appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw OpenCatError(.cache, "cannot create the cache key file (errno \(errno))") }
        defer { unlink(temporary.path) }
        let written = key.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == 32, synced else {
            throw OpenCatError(.cache, "cannot write the cache key file (errno \(errno))")
        }
        // link(2) fails with EEXIST if the name is taken: the file appears whole, or not at all.
        guard link(temporary.path, fileURL.path) == 0 else {
            if errno == EEXIST { return nil }
            throw OpenCatError(.cache, "cannot publish the cache key file (errno \(errno))")
        }
        return key
    }

    private func isFresh() -> Bool {
        guard
            let modified = (try? FileManager.default.attributesOfItem(atPath: fileURL.path))?[.modificationDate]
                as? Date
        else { return false }
        return Date().timeIntervalSince(modified) < settleInterval.timeInterval
    }

    private func setAside(reason: String) {
        let stamp = Int64(Date().timeIntervalSince1970 * 1000)
        var destination = fileURL.appendingPathExtension("damaged-\(stamp)")
        var suffix = 1
        while FileManager.default.fileExists(atPath: destination.path) {
            destination = fileURL.appendingPathExtension("damaged-\(stamp)-\(suffix)")
            suffix += 1
        }
        // rename(2) fails if another process already moved it: then there is nothing left to move.
        if rename(fileURL.path, destination.path) == 0 {
            logger?.error(
                "cache key file unusable; set aside and replaced",
                metadata: ["reason": "\(reason)", "keptAt": "\(destination.lastPathComponent)"]
            )
        }
    }

    private func warnIfReadableByOthers() {
        guard
            let mode = (try? FileManager.default.attributesOfItem(atPath: fileURL.path))?[.posixPermissions]
                as? Int, mode & 0o077 != 0
        else { return }
        logger?.warning(
            "the cache key file is readable or writable by others",
            metadata: ["mode": "\(String(mode, radix: 8))", "expected": "600"]
        )
    }
}
