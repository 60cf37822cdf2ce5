public import Crypto
public import Foundation

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
public struct FileKeyProvider: KeyProvider {
    /// Where the key lives.
    public let fileURL: URL

    /// Creates a provider.
    /// - Parameter fileURL: the key file; created (with its folder) on first use.
    public init(fileURL: URL) { self.fileURL = fileURL }

    public func cacheKey() throws -> SymmetricKey {
        if let data = FileManager.default.contents(atPath: fileURL.path) {
            guard data.count == 32 else {
                throw OpenCatError(.cache, "the cache key file is not 32 bytes long (\(data.count))")
            }
            return SymmetricKey(data: data)
        }
        try FileManager.default.createDirectory(
            at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let key = SymmetricKey(size: .bits256)
        let bytes = key.withUnsafeBytes { Data($0) }
        // O_EXCL: if another process created the file meanwhile, read theirs instead of overwriting it.
        let fd = open(fileURL.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if fd < 0 {
            if errno == EEXIST, let data = FileManager.default.contents(atPath: fileURL.path), data.count == 32 {
                return SymmetricKey(data: data)
            }
            throw OpenCatError(.cache, "cannot create the cache key file (errno \(errno))")
        }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == 32, fsync(fd) == 0 else {
            throw OpenCatError(.cache, "cannot write the cache key file (errno \(errno))")
        }
        return key
    }
}
