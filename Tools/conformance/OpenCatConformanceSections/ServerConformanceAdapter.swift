import Crypto
import Foundation
import KeyServerClient
import Logging
import MockStores
import OpenCat
public import OpenCatConformance
public import OpenCatCore
import OpenCatServer
import OpenCatTesting
public import StoreAdapters

/// The `server` section: the reference server (OpenCatServer, on a fresh SQLite ledger) run on loopback for each
/// case, its store adapter pointed at the mock stores, and the clients talking to it as apps do — KeyServerClient
/// buying a key pack (the licenses checked in a ``KeyVault``) and the OpenCat SDK in server mode posting a receipt.
///
/// A cassette's `config`: `platform` (the store behind the proof), `storeConfig` (that store's adapter config, as in
/// its own cassettes), `keyPack` (what the product credits), `entitlements` (product → entitlement ids), optional
/// `steamId` and `appUserId` (the SDK's user in receipts). Its `input.kind`: `keyPurchase`, `replayedKeyPurchase` (bought, then the same proof sent by another
/// user), `stolenKeyPurchase` (the proof sent by another user before its buyer) or `receipt` (with `context.proofKind`, the store proof's kind); `input.token` is the store's proof.
public struct ServerConformanceAdapter: StoreAdapter {
    public static let serverStore = Store(rawValue: "server")
    public var store: Store { Self.serverStore }

    let platform: Store
    let storeAdapter: any StoreAdapter
    let keyPack: KeyPack
    let entitlements: [String: [String]]
    let steamId: String
    /// The SDK's app user in receipt scenarios (`config.appUserId`): an Apple transaction carrying an
    /// `appAccountToken` belongs to the app user whose id is that UUID.
    let appUserId: String
    let credentials: ConformanceCredentials
    let section: SectionCredentials
    let http: OpenCatCore.HTTPClient
    let transport: any HTTPTransport

    public init(environment: ConformanceEnvironment, section: SectionCredentials) throws {
        self.section = section
        let platform = Store(rawValue: try environment.string("platform"))
        guard let factory = ConformanceAdapterFactory.builtIn.first(where: { $0.store == platform }) else {
            throw ConformanceError("config.platform: expected apple, google, stripe, paypal or steam")
        }
        guard case .object(let storeConfig)? = environment.config["storeConfig"] else {
            throw ConformanceError("config.storeConfig: expected the store adapter's config")
        }
        var storeEnvironment = environment
        storeEnvironment.config = storeConfig
        self.platform = platform
        storeAdapter = try factory.make(storeEnvironment)
        if let pack = environment.config["keyPack"] {
            keyPack = try JSONDecoder().decode(KeyPack.self, from: pack.serialized())
        } else {
            keyPack = KeyPack(keys: 10)
        }
        var map: [String: [String]] = [:]
        if case .object(let members)? = environment.config["entitlements"] {
            for (product, ids) in members {
                if case .array(let values) = ids { map[product] = values.compactMap(\.stringValue) }
            }
        }
        entitlements = map
        steamId = environment.optionalString("steamId") ?? "76561197960287930"
        appUserId = environment.optionalString("appUserId") ?? Self.buyer
        credentials = environment.credentials
        http = environment.httpClient
        transport = environment.httpClient.transport
    }

    static let bobToken = "conformance-second-user-token-7f3a9c"
    static let buyer = "player-42"

    public func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-server-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = http.clock
        let ledger = try SQLiteLedgerStore(
            fileURL: folder.appendingPathComponent("ledger.sqlite"),
            now: { clock.currentDate }
        )
        let issuer = section.licenseIssuer
        var settings = ServerSettings(
            users: BearerTokens(users: [
                // The buyer's id is the purchaser the stores' recorded purchases name (the server binds Google,
                // Stripe and PayPal purchases to the token's user).
                ServerUser(
                    userId: Self.buyer,
                    email: "ada@example.com",
                    steamId: steamId,
                    token: credentials.keyServerToken.revealed
                ),
                ServerUser(userId: "bob", email: "bob@example.com", token: Self.bobToken),
            ]),
            keyPacks: [proof.productId ?? "": keyPack],
            keyring: try LicenseKeyring(issuers: [issuer], activeKid: issuer.kid),
            openCat: OpenCatAPISettings(
                apiKeySHA256: [BearerTokens.hash(credentials.openCatAPIKey.revealed)],
                entitlements: entitlements,
                offerings: Offerings(currentOfferingId: nil, all: [:])
            )
        )
        // One request per scenario: the Steam refund reconciliation does not run beside it.
        settings.steamReconciliationSeconds = nil
        let server = OpenCatServerApplication(
            ledger: ledger,
            settings: settings,
            adapters: [storeAdapter],
            databaseKind: "sqlite",
            logger: Logger(label: "conformance.server", factory: { _ in SwiftLogNoOpLogHandler() }),
            now: { clock.currentDate }
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            group.addTask { try await server.run(port: 0) { continuation.yield($0) } }
            defer { group.cancelAll() }
            var url: URL?
            for await port in ports {
                url = URL(string: "http://127.0.0.1:\(port)")
                break
            }
            guard let url else { throw ConformanceError("the server did not start") }
            return try await run(proof, on: url, ledger: ledger)
        }
    }

    func run(_ proof: PurchaseProof, on url: URL, ledger: any LedgerStore) async throws -> VerifiedPurchase {
        let kinds: [Store: PurchaseProof.Kind] = [
            .apple: .appleSignedTransaction, .google: .googleProductPurchaseToken, .stripe: .stripePaymentIntent,
            .paypal: .paypalOrder, .steam: .steamTransaction,
        ]
        switch proof.kind.rawValue {
        case "stolenKeyPurchase":
            // Another user sends the buyer's proof first: refused, and nobody is credited.
            let storeProof = PurchaseProof(
                store: platform,
                kind: kinds[platform]!,
                token: proof.token,
                productId: proof.productId
            )
            _ = try await keyServer {
                try await client(url, token: Self.bobToken)
                    .purchaseKeyPack(storeProof, email: "bob@example.com", steamId: steamId)
            }
            throw StoreAdapterError(.malformedResponse, store: store, "the server credited another user's purchase")
        case "keyPurchase", "replayedKeyPurchase":
            let storeProof = PurchaseProof(
                store: platform,
                kind: kinds[platform]!,
                token: proof.token,
                productId: proof.productId
            )
            let result = try await keyServer {
                try await client(url, token: credentials.keyServerToken.revealed)
                    .purchaseKeyPack(storeProof, email: "ada@example.com", steamId: steamId)
            }
            let stored = try await storeInVault(result.licenses, url: url)
            let balance = try await ledger.balance(of: Self.buyer)
            guard balance == keyPack.keys + keyPack.bonusKeys, stored.count == keyPack.licenses else {
                throw StoreAdapterError(.malformedResponse, store: store, "the wallet or the licenses do not match")
            }
            if proof.kind.rawValue == "replayedKeyPurchase" {
                _ = try await keyServer {
                    try await client(url, token: Self.bobToken)
                        .purchaseKeyPack(storeProof, email: "bob@example.com", steamId: steamId)
                }
            }
            return VerifiedPurchase(
                store: store,
                transactionId: result.transactionId,
                productId: proof.productId ?? "",
                purchaseDate: http.clock.currentDate,
                state: .active,
                environment: .production,
                quantity: stored.count
            )
        case "receipt":
            return try await receipt(proof, url: url)
        default:
            throw StoreAdapterError(.invalidProof, store: store, "unknown server operation \(proof.kind)")
        }
    }

    /// The SDK in server mode: the proof is the store's current entitlement; restoring posts it to the server.
    func receipt(_ proof: PurchaseProof, url: URL) async throws -> VerifiedPurchase {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-sdk-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let storeClient = TestStoreClient(store: platform)
        var storeProof = proof
        storeProof.store = platform
        storeProof.kind = PurchaseProof.Kind(rawValue: proof.context["proofKind"] ?? "")
        storeProof.context["proofKind"] = nil
        storeClient.setCurrent([storeProof])
        let sdk = try OpenCat.configureWithServer(
            serverURL: url,
            apiKey: credentials.openCatAPIKey.revealed,
            appUserId: appUserId,
            storeClient: storeClient,
            options: .init(
                cacheDirectory: folder,
                keyProvider: StaticKeyProvider(key: SymmetricKey(size: .bits256)),
                clock: http.clock,
                transport: transport,
                retryPolicy: RetryPolicy(maxAttempts: 1, jitter: .none)
            )
        )
        defer { OpenCat.reset() }
        let info: CustomerInfo
        do { info = try await sdk.restorePurchases() } catch {
            throw StoreAdapterError(.invalidProof, store: store, "the server refused the receipt")
        }
        guard let entitlement = info.entitlements.values.first(where: { $0.productId == proof.productId }),
            let transaction = info.allTransactions.first(where: { $0.productId == proof.productId })
        else {
            throw StoreAdapterError(
                .notFound,
                store: store,
                "no entitlement for the product (\(info.allTransactions.count) transactions, entitlements "
                    + "\(info.entitlements.keys.sorted()))"
            )
        }
        return VerifiedPurchase(
            store: store,
            transactionId: transaction.transactionId,
            originalTransactionId: transaction.originalTransactionId,
            productId: entitlement.productId,
            purchaseDate: entitlement.purchaseDate,
            expirationDate: entitlement.expirationDate,
            state: entitlement.isActive ? .active : .expired,
            environment: .production,
            willRenew: entitlement.willRenew
        )
    }

    func client(_ url: URL, token: String) -> KeyServerClient {
        KeyServerClient(
            configuration: KeyServerConfiguration(
                baseURL: url,
                token: Secret(token),
                // The server's store adapter sleeps between retries on the suite's test clock; this client waits on
                // real time, so its wait does not hold that clock still.
                timeout: .seconds(60),
                retryAttempts: 0,
                transport: transport,
                clock: SystemClock()
            )
        )
    }

    func storeInVault(_ licenses: [VULicenseKey], url: URL) async throws -> [VULicenseKey] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-keyvault-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let issuer = section.licenseIssuer
        let vault = try KeyVault(
            fileURL: folder.appendingPathComponent("vault.sqlite"),
            keyProvider: StaticKeyProvider(key: SymmetricKey(size: .bits256)),
            userId: "ada",
            verifier: LicenseVerifier(keys: [issuer.kid: issuer.publicKey]),
            client: client(url, token: credentials.keyServerToken.revealed),
            clock: http.clock
        )
        do { return try await vault.store(licenses) } catch {
            throw StoreAdapterError(.invalidProof, store: store, "a minted license does not verify")
        }
    }

    /// Runs a key-server call, its errors as the shared codes (the server's `reason` when it names one).
    func keyServer<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as KeyServerError {
            var code = KeyServerConformanceAdapter.code(error.code)
            if let reason = error.serverReason, StoreAdapterError.Code.all.contains(where: { $0.rawValue == reason }) {
                code = StoreAdapterError.Code(rawValue: reason)
            }
            throw StoreAdapterError(
                code,
                store: store,
                error.message,
                storeReason: error.serverCode,
                httpStatus: error.status
            )
        }
    }
}

extension ConformanceAdapterFactory {
    /// The reference server with its clients: the server section of the matrix.
    /// The reference server's section adapter, with the run's section credentials.
    public static func server(_ section: SectionCredentials) -> ConformanceAdapterFactory {
        ConformanceAdapterFactory(store: ServerConformanceAdapter.serverStore) { environment in
            try ServerConformanceAdapter(environment: environment, section: section)
        }
    }
}
