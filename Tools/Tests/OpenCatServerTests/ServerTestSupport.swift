import Crypto
import Foundation
import HTTPTypes
import KeyServerClient
import Logging
import OpenCatCore
import OpenCatServer
import OpenCatTesting
import StoreAdapters
import _CryptoExtras

/// A ledger backend the shared server tests run on.
enum Backend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgresql

    var description: String { rawValue }

    /// Runs `body` with `count` stores on one fresh database (several PostgreSQL clients act as instances; SQLite
    /// has one process and so one store).
    func withStores<T>(
        _ count: Int = 1,
        now: @escaping @Sendable () -> Date,
        _ body: ([any LedgerStore]) async throws -> T
    )
        async throws -> T
    {
        switch self {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-server-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = try SQLiteLedgerStore(fileURL: folder.appendingPathComponent("ledger.sqlite"), now: now)
            return try await body([store])
        case .postgresql:
            return try await ServerTestPostgres.withStores(count, now: now) { try await body($0) }
        }
    }
}

/// A movable clock for the tests: the server's clock and the store adapters' are the same.
final class TestClock: Sendable {
    let manual: ManualClock
    init(_ start: Date) { manual = ManualClock(start: start) }
    var now: Date { manual.currentDate }
    func advance(_ seconds: TimeInterval) { manual.advance(by: .seconds(seconds)) }
}

/// Everything a server test needs: users, a key pack, an app's features, signing keys, an App Store adapter that
/// verifies JWS from a test CA, and a server on the ledger.
struct ServerFixture {
    static let bundleId = "dev.opencat.server.tests"
    static let packProduct = "dev.opencat.keys.10"
    static let proProduct = "dev.opencat.pro.monthly"
    static let signedDate = Date(timeIntervalSince1970: 1_790_000_000)

    let ca: MockAppleCA
    let otherCA: MockAppleCA
    let keyring: LicenseKeyring
    let clock: TestClock
    let server: OpenCatServerApplication
    let ledger: any LedgerStore

    /// user-0 … user-118, and user 119 with characters clients percent-encode in paths.
    static let users: [ServerUser] = (0..<120).map { index in
        ServerUser(
            userId: index == 119 ? "ada:119@example.com|x" : "user-\(index)",
            email: "user\(index)@example.com",
            steamId: String(76_561_198_000_000_000 + UInt64(index)),
            token: token(index)
        )
    }

    static func token(_ index: Int) -> String { "tok-\(index)-" + String(repeating: "s", count: 24) }
    static let apiKey = "ocat_server_tests_0123456789"
    /// The app backend's secret key: it also reads subscribers' history.
    static let secretKey = "ocat_sk_server_tests_9876543210"

    static let ca: MockAppleCA = try! MockAppleCA()
    static let otherCA: MockAppleCA = try! MockAppleCA()

    init(
        ledger: any LedgerStore,
        clock: TestClock,
        keyring: LicenseKeyring? = nil,
        syncLimit: RateLimit? = nil,
        stores: [any StoreAdapter] = [],
        stripeWebhooks: StripeWebhookVerifier? = nil,
        payPalWebhooks: PayPalWebhookVerifier? = nil,
        googlePushToken: String? = nil,
        storeRateLimit: RateLimit? = nil,
        idleTimeoutSeconds: Int? = nil,
        acceptedEnvironments: [Store: Set<VerifiedPurchase.Environment>] = [:],
        logger: Logger = Logger(label: "tests.server", factory: { _ in SwiftLogNoOpLogHandler() }),
        adjust: (inout ServerSettings) -> Void = { _ in }
    ) throws {
        self.ca = Self.ca
        self.otherCA = Self.otherCA
        self.clock = clock
        self.ledger = ledger
        self.keyring =
            try keyring
            ?? LicenseKeyring(
                issuers: [LicenseIssuer(privateKey: Curve25519.Signing.PrivateKey(), kid: "2026-11")],
                activeKid: "2026-11"
            )
        let apple = AppleStoreAdapter(
            configuration: .init(
                bundleId: Self.bundleId,
                rootCertificates: [ca.rootCertificate],
                environment: .production,
                validationTime: .signedDate,
                httpClient: HTTPClient(clock: clock.manual)
            )
        )
        var offerings = Offerings(currentOfferingId: nil, all: [:])
        offerings.currentOfferingId = "default"
        var settings = ServerSettings(
            users: BearerTokens(users: Self.users),
            keyPacks: [Self.packProduct: KeyPack(keys: 10, bonusKeys: 2, communityKeys: 1, plan: "L2", licenses: 2)],
            apps: ["voiceuwu": [FeatureSetting(id: "echo", name: "Echo", cost: 3)]],
            keyring: self.keyring,
            syncRateLimit: syncLimit ?? RateLimit(requests: 1_000, seconds: 1),
            openCat: OpenCatAPISettings(
                apiKeySHA256: [BearerTokens.hash(Self.apiKey)],
                entitlements: [Self.proProduct: ["pro"]],
                offerings: offerings
            )
        )
        settings.googlePushToken = googlePushToken
        settings.openCat?.secretKeySHA256 = [BearerTokens.hash(Self.secretKey)]
        settings.storeRateLimit = storeRateLimit ?? RateLimit(requests: 1_000, seconds: 1)
        if let idleTimeoutSeconds { settings.idleTimeoutSeconds = idleTimeoutSeconds }
        settings.acceptedEnvironments = acceptedEnvironments
        adjust(&settings)
        server = OpenCatServerApplication(
            ledger: ledger,
            settings: settings,
            adapters: [apple] + stores,
            stripeWebhooks: stripeWebhooks,
            payPalWebhooks: payPalWebhooks,
            databaseKind: "test",
            logger: logger,
            now: { clock.now }
        )
    }

    /// A signed App Store transaction.
    func appleTransaction(
        id: String,
        productId: String = ServerFixture.packProduct,
        bundleId: String = ServerFixture.bundleId,
        signer: MockAppleCA? = nil,
        originalId: String? = nil,
        expires: Date? = nil,
        revoked: Date? = nil,
        purchaseDate: Date = ServerFixture.signedDate.addingTimeInterval(-60),
        signed: Date = ServerFixture.signedDate
    ) -> String {
        let payload = JWSTransactionDecodedPayload(
            originalTransactionId: originalId ?? id,
            transactionId: id,
            bundleId: bundleId,
            productId: productId,
            purchaseDate: purchaseDate,
            originalPurchaseDate: purchaseDate,
            expiresDate: expires,
            quantity: 1,
            rawType: expires == nil ? "Consumable" : "Auto-Renewable Subscription",
            rawInAppOwnershipType: "PURCHASED",
            signedDate: signed,
            revocationDate: revoked,
            rawEnvironment: "Production",
            currency: "USD",
            price: 4990
        )
        return try! (signer ?? ca).signJWS(payload)
    }

    /// Google Play's API as a script that already answers `POST /token` (the service account's access token, which
    /// ``google(_:clock:)`` asks for first); a test adds the answers it needs.
    static func play() -> ScriptedTransport {
        let play = ScriptedTransport()
        play.on(.post, "/token", json: #"{"access_token":"ya29.test","expires_in":3600,"token_type":"Bearer"}"#)
        return play
    }

    /// A Google Play adapter for package `dev.opencat.server.tests` on `https://play.test`, answered by `play` (which
    /// must answer `POST /token`), with a service account key made for the test; it acknowledges nothing.
    static func google(_ play: ScriptedTransport, clock: TestClock) throws -> GooglePlayAdapter {
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        return GooglePlayAdapter(
            configuration: try .init(
                packageName: bundleId,
                serviceAccount: GoogleServiceAccount(
                    privateKeyId: "test",
                    privateKey: Secret(rsa.pemRepresentation),
                    clientEmail: "server-tests@example.iam.gserviceaccount.com",
                    tokenURI: URL(string: "https://play.test/token")!
                ),
                baseURL: URL(string: "https://play.test")!,
                tokenURL: URL(string: "https://play.test/token")!,
                httpClient: HTTPClient(transport: play, clock: clock.manual),
                acknowledge: false
            )
        )
    }

    /// A signed App Store Server Notification V2 body reporting a transaction.
    /// `renewal`: the `signedRenewalInfo` it carries, signed by the test CA (none when nil).
    func appleNotification(
        type: String,
        subtype: String? = nil,
        uuid: String,
        transaction: String,
        renewal: JWSRenewalInfoDecodedPayload? = nil,
        signed: Date = ServerFixture.signedDate
    ) throws -> Data {
        var data: [String: Any] = [
            "environment": "Production", "bundleId": Self.bundleId, "signedTransactionInfo": transaction,
        ]
        if let renewal { data["signedRenewalInfo"] = try ca.signJWS(renewal) }
        var notification: [String: Any] = [
            "notificationType": type, "notificationUUID": uuid, "data": data, "version": "2.0",
            "signedDate": Int64(signed.timeIntervalSince1970 * 1000),
        ]
        if let subtype { notification["subtype"] = subtype }
        let payload = try JSONSerialization.data(withJSONObject: notification)
        return try JSONSerialization.data(withJSONObject: ["signedPayload": ca.signJWS(payload: payload)])
    }
}
