import Foundation
import OpenCatCore

/// What a vault keeps for one user (sealed in the encrypted cache as one value).
struct VaultState: Codable, Sendable, Equatable {
    /// Licenses by human key (canonical spelling), as the server delivered them, kept in a flat form that opens fast
    /// (no parsing, no date formats): a vault of 10,000 licenses opens well under 100 ms.
    var licenses: [String: StoredLicense] = [:]
    /// The balance the server last confirmed, less the spends still pending.
    var balance: Int = 0
    /// Unlocked features by app id (confirmed and provisional).
    var unlocked: [String: Set<String>] = [:]
    /// Spends made offline and not yet confirmed, by spend id.
    var pending: [String: PendingSpend] = [:]
    /// History as the server last sent it, then local entries.
    var history: [WalletTransaction] = []
    /// The latest trusted time seen (a server's answer): licenses are checked at no earlier time.
    var lastConfirmed: Date?
    /// When Keys for All last synced (the cooldown is measured from it).
    var lastKeySync: Date?
    /// The newest revocation list accepted (its serial is the rollback floor); nil before the first.
    var revocations: StoredRevocations?

    init() {}

    /// Every member may be missing (a state written by an older version, or a newer one with fewer fields): the
    /// vault never falls back to an empty state because one member changed.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        licenses = try container.decodeIfPresent([String: StoredLicense].self, forKey: .licenses) ?? [:]
        balance = try container.decodeIfPresent(Int.self, forKey: .balance) ?? 0
        unlocked = try container.decodeIfPresent([String: Set<String>].self, forKey: .unlocked) ?? [:]
        pending = try container.decodeIfPresent([String: PendingSpend].self, forKey: .pending) ?? [:]
        history = try container.decodeIfPresent([WalletTransaction].self, forKey: .history) ?? []
        lastConfirmed = try container.decodeIfPresent(Date.self, forKey: .lastConfirmed)
        lastKeySync = try container.decodeIfPresent(Date.self, forKey: .lastKeySync)
        revocations = try container.decodeIfPresent(StoredRevocations.self, forKey: .revocations)
    }
}

/// A spend made offline: applied to the local balance and unlocks, waiting in the outbox for the server.
struct PendingSpend: Codable, Sendable, Equatable {
    var id: String
    var amount: Int
    var feature: String
    var app: String
    var userId: String
    var madeAt: Date
    /// Whether the feature was already unlocked before this spend (a revert must not lock it then).
    var wasUnlocked: Bool

    init(id: String, amount: Int, feature: String, app: String, userId: String, madeAt: Date, wasUnlocked: Bool) {
        self.id = id
        self.amount = amount
        self.feature = feature
        self.app = app
        self.userId = userId
        self.madeAt = madeAt
        self.wasUnlocked = wasUnlocked
    }

    private enum CodingKeys: String, CodingKey { case id, amount, feature, app, userId, madeAt, wasUnlocked }

    /// Reads `madeAt` as OpenCat's ISO 8601 text, or as the seconds since 2001 that entries written before the
    /// shared outbox used.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        amount = try container.decode(Int.self, forKey: .amount)
        feature = try container.decode(String.self, forKey: .feature)
        app = try container.decode(String.self, forKey: .app)
        userId = try container.decode(String.self, forKey: .userId)
        wasUnlocked = try container.decode(Bool.self, forKey: .wasUnlocked)
        if let seconds = try? container.decode(Double.self, forKey: .madeAt) {
            madeAt = Date(timeIntervalSinceReferenceDate: seconds)
        } else {
            madeAt = try container.decode(Date.self, forKey: .madeAt)
        }
    }
}

/// A stored key: the license string and what the server said about it, parsed only when asked for.
struct StoredLicense: Codable, Sendable, Equatable {
    var key: String
    var plan: String
    /// Seconds since 1970.
    var purchasedAt: Double
    var license: String
    var metadata: [String: MetadataValue]?

    init(_ key: VULicenseKey) {
        self.key = key.keyValue.description
        self.plan = key.planType.description
        self.purchasedAt = key.purchaseDate.timeIntervalSince1970
        self.license = key.license.rawValue
        self.metadata = key.serverMetadata
    }

    /// The key as the API models it; nil if the stored text no longer parses.
    var model: VULicenseKey? {
        guard let human = try? HumanKey(key), let level = PlanLevel(plan), let signed = try? SignedLicense(license)
        else { return nil }
        return VULicenseKey(
            keyValue: human,
            planType: level,
            purchaseDate: Date(timeIntervalSince1970: purchasedAt),
            license: signed,
            serverMetadata: metadata
        )
    }
}

/// The revocation list the vault accepted, in the flat form the vault keeps (verified when it was accepted; the sealed
/// cache keeps it authentic since).
struct StoredRevocations: Codable, Sendable, Equatable {
    /// The highest serial accepted: a list below it is refused.
    var serial: UInt64
    var kid: String
    /// Seconds since 1970.
    var issuedAt: Double
    /// Revoked license IDs (`LicenseRevocationList.licenseID(of:)`), sorted.
    var revoked: [String]
    /// The signed list as it came.
    var text: String

    init(_ list: LicenseRevocationList) {
        serial = list.serial
        kid = list.kid
        issuedAt = list.issuedAt.timeIntervalSince1970
        revoked = list.revokedIDs.sorted()
        text = list.rawValue
    }

    /// The list as the API models it.
    var list: LicenseRevocationList {
        LicenseRevocationList(
            rawValue: text,
            kid: kid,
            serial: serial,
            issuedAt: Date(timeIntervalSince1970: issuedAt),
            revokedIDs: Set(revoked)
        )
    }
}
