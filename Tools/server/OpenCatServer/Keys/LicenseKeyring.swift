import Crypto
public import Foundation
public import KeyServerAPI
public import OpenCatLicense

/// The server's license signing keys, by `kid`: one signs new licenses, every other one stays published so the
/// licenses it signed keep verifying after a rotation.
///
/// Keys are read from a folder with one file per key, `<kid>.ed25519`, holding the base64 of the raw 32-byte
/// Ed25519 private key (`opencat-server keygen` writes one). The folder is never in the repository; a file readable
/// by anyone but its owner is refused.
public struct LicenseKeyring: Sendable {
    /// Every key, by kid.
    public let issuers: [String: LicenseIssuer]
    /// The kid that signs new licenses.
    public let activeKid: String

    /// A keyring from issuers; `activeKid` must be one of them.
    public init(issuers: [LicenseIssuer], activeKid: String) throws(ServerConfigurationError) {
        self.issuers = Dictionary(issuers.map { ($0.kid, $0) }, uniquingKeysWith: { first, _ in first })
        guard self.issuers[activeKid] != nil else {
            throw ServerConfigurationError("the active signing key \(activeKid) is not in the keyring")
        }
        self.activeKid = activeKid
    }

    /// Reads every `<kid>.ed25519` file of a folder.
    public init(folder: URL, activeKid: String) throws(ServerConfigurationError) {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder.path) } catch {
            throw ServerConfigurationError("the signing key folder \(folder.path) cannot be read")
        }
        var issuers: [LicenseIssuer] = []
        for name in names.sorted() where name.hasSuffix(".ed25519") {
            let kid = String(name.dropLast(".ed25519".count))
            let file = folder.appendingPathComponent(name)
            try Self.checkOwnerOnly(file)
            guard let text = try? String(contentsOf: file, encoding: .utf8),
                let raw = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)),
                let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw)
            else {
                throw ServerConfigurationError("\(name) does not hold the base64 of a raw Ed25519 private key")
            }
            issuers.append(LicenseIssuer(privateKey: key, kid: kid))
        }
        try self.init(issuers: issuers, activeKid: activeKid)
    }

    /// Writes a new key file (owner-only) and returns its issuer.
    public static func generate(kid: String, in folder: URL) throws(ServerConfigurationError) -> LicenseIssuer {
        guard kid.range(of: "^[A-Za-z0-9._-]{1,64}$", options: .regularExpression) != nil else {
            throw ServerConfigurationError("a kid is 1 to 64 letters, digits, dots, dashes or underscores")
        }
        let file = folder.appendingPathComponent("\(kid).ed25519")
        guard !FileManager.default.fileExists(atPath: file.path) else {
            throw ServerConfigurationError("\(file.lastPathComponent) exists; a kid is never reused")
        }
        let key = Curve25519.Signing.PrivateKey()
        let created = FileManager.default.createFile(
            atPath: file.path,
            contents: Data((key.rawRepresentation.base64EncodedString() + "\n").utf8),
            attributes: [.posixPermissions: 0o600]
        )
        guard created else { throw ServerConfigurationError("\(file.path) cannot be written") }
        return LicenseIssuer(privateKey: key, kid: kid)
    }

    static func checkOwnerOnly(_ file: URL) throws(ServerConfigurationError) {
        if OwnerOnlyFile.isOpenToOthers(file.path) {
            throw ServerConfigurationError("\(file.lastPathComponent) is readable by others (chmod 600 it)")
        }
    }

    /// The public keys apps embed, by kid (base64 of the raw 32 bytes).
    public var publicKeys: [String: String] {
        issuers.mapValues { $0.publicKey.rawRepresentation.base64EncodedString() }
    }

    /// Mints `count` licenses for a plan, signed by the active key: each a fresh human key with 55 random bits.
    /// - Parameters:
    ///   - expiresAt: when a subscription's licenses stop verifying (nil: a purchase, valid for good).
    ///   - offlineUntil: until when a device may trust them without syncing (renewed at every key sync).
    public func mint(
        count: Int,
        plan: PlanLevel,
        owner: String,
        purchasedAt: Date,
        expiresAt: Date? = nil,
        offlineUntil: Date? = nil
    ) throws -> [VULicenseKey] {
        let issuer = issuers[activeKid]!
        var generator = SystemRandomNumberGenerator()
        return try (0..<count).map { _ in
            let key = HumanKey(
                dataValues: (0..<11).map { _ in UInt8.random(in: 0..<32, using: &generator) },
                plan: plan
            )
            let payload = LicensePayload(
                key: key,
                plan: plan,
                owner: owner,
                purchasedAt: purchasedAt,
                expiresAt: expiresAt,
                offlineUntil: offlineUntil,
                kid: issuer.kid
            )
            return VULicenseKey(
                keyValue: key,
                planType: plan,
                purchaseDate: purchasedAt,
                license: try issuer.sign(payload)
            )
        }
    }

    /// A license signed again by the active key with a new offline window (what key sync sends).
    public func renew(_ key: VULicenseKey, offlineUntil: Date) throws -> VULicenseKey {
        var renewed = key
        renewed.license = try issuers[activeKid]!.renew(key.license, offlineUntil: offlineUntil)
        return renewed
    }

    /// Signs the revocation list the server serves (key sync's `revocations`), with the active key: every license
    /// withdrawn so far (refunds, chargebacks), by human key. The list is cumulative and `serial` must grow with each
    /// list published (apps refuse a list older than one they accepted); the list names each license by
    /// ``LicenseRevocationList/licenseID(of:)``, never by its key.
    /// - Returns: the signed list; serve its `rawValue`.
    public func revocationList(
        serial: UInt64,
        revoking keys: some Sequence<HumanKey>,
        issuedAt: Date
    ) throws -> LicenseRevocationList {
        try issuers[activeKid]!.signRevocations(serial: serial, revoking: keys, issuedAt: issuedAt)
    }
}

/// A configuration the server cannot start with.
public struct ServerConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the setting or file (never a key's bytes).
    public var message: String
    /// An error with its message.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// The one check that a secret file (a signing key, a database password) is the owner's alone.
public enum OwnerOnlyFile {
    /// Whether the file's mode grants its group or others any access (`mode & 0o077 != 0`); `false` when it cannot
    /// be read (reading it then fails with its own error).
    public static func isOpenToOthers(_ path: String) -> Bool {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let mode = (attributes?[.posixPermissions] as? NSNumber)?.intValue else { return false }
        return mode & 0o077 != 0
    }
}
