import Crypto
import Foundation
import KeyServerClient
import MockStores
public import OpenCatConformance
public import OpenCatCore
import OpenCatStorage
public import StoreAdapters

/// Runs the key-server section of the matrix through the same runner as the stores: each cassette names one
/// operation of ``KeyServerClient`` (a key-pack purchase on one of the five platforms, a spend, a Keys for All sync)
/// and its result is reported as a ``VerifiedPurchase`` (the transaction id, and in `quantity` the keys the vault
/// stored after verifying them offline, or the balance left after a spend). A ``KeyServerError`` becomes the
/// ``StoreAdapterError`` of the same meaning (`insufficientBalance` keeps its own code).
///
/// Input (`input.kind`, `input.token`, `input.productId`, `input.context`):
/// - `keyPurchase`: `context.platform` (`apple`…`steam`), the proof `token`, `productId`, `context.email` or
///   `context.steamId`;
/// - `walletSpend`: `context.amount`, `context.feature`, `context.app`, `context.userId`;
/// - `keySync`: `context.email`; `config.localLicenses` lists licenses the vault holds before the sync.
public struct KeyServerConformanceAdapter: StoreAdapter {
    public var store: Store { MockCredentials.keyServerStore }
    let client: KeyServerClient
    let verifier: LicenseVerifier
    let localLicenses: [String]
    let clock: any WallClock

    public init(environment: ConformanceEnvironment, section: SectionCredentials) throws {
        let http = environment.httpClient
        client = KeyServerClient(
            configuration: KeyServerConfiguration(
                baseURL: environment.baseURL,
                token: Secret(try environment.string("token")),
                timeout: http.timeout,
                retryAttempts: http.retryPolicy.maxAttempts - 1,
                transport: http.transport,
                clock: http.clock
            )
        )
        let issuer = section.licenseIssuer
        verifier = LicenseVerifier(keys: [issuer.kid: issuer.publicKey])
        if case .array(let values)? = environment.config["localLicenses"] {
            localLicenses = values.compactMap(\.stringValue)
        } else {
            localLicenses = []
        }
        clock = http.clock
    }

    public func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        do {
            switch proof.kind.rawValue {
            case "keyPurchase": return try await purchase(proof)
            case "walletSpend": return try await spend(proof)
            case "keySync": return try await sync(proof)
            default: throw StoreAdapterError(.invalidProof, store: store, "unknown key-server operation \(proof.kind)")
            }
        } catch let error as KeyServerError {
            throw StoreAdapterError(
                Self.code(error.code),
                store: store,
                error.message,
                storeReason: error.serverCode,
                httpStatus: error.status
            )
        } catch let error as KeyVaultError {
            throw StoreAdapterError(.invalidProof, store: store, error.message)
        }
    }

    private func purchase(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        guard let platform = proof.context["platform"].flatMap(Platform.init(rawValue:)) else {
            throw StoreAdapterError(.invalidProof, store: store, "context.platform: expected apple…steam")
        }
        let kinds: [Platform: PurchaseProof.Kind] = [
            .apple: .appleSignedTransaction, .google: .googleProductPurchaseToken, .stripe: .stripePaymentIntent,
            .paypal: .paypalOrder, .steam: .steamTransaction,
        ]
        let storeProof = PurchaseProof(
            store: platform.store,
            kind: kinds[platform]!,
            token: proof.token,
            productId: proof.productId
        )
        let result = try await client.purchaseKeyPack(
            storeProof,
            email: proof.context["email"],
            steamId: proof.context["steamId"]
        )
        let stored = try await withVault { try await $0.store(result.licenses) }
        return purchase(
            transactionId: result.transactionId,
            product: proof.productId ?? "keypack",
            quantity: stored.count
        )
    }

    private func spend(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        let context = proof.context
        guard let amount = context["amount"].flatMap(Int.init), let feature = context["feature"],
            let app = context["app"], let userId = context["userId"]
        else { throw StoreAdapterError(.invalidProof, store: store, "context: amount, feature, app and userId") }
        let result = try await client.spendKeys(
            amount: amount,
            feature: feature,
            app: app,
            userId: userId,
            idempotencyKey: proof.token.revealed
        )
        return purchase(transactionId: result.transactionId, product: feature, quantity: result.remainingBalance)
    }

    private func sync(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        let local = try localLicenses.map { text in
            let license = try SignedLicense(text)
            let payload = try license.unverifiedPayload()
            return VULicenseKey(
                keyValue: payload.key,
                planType: payload.plan,
                purchaseDate: payload.purchasedAt,
                license: license
            )
        }
        let added = try await withVault { vault in
            try await vault.store(local)
            return try await KeysForAllSync(vault: vault, client: client, email: proof.context["email"]).manualSync()
        }
        return purchase(transactionId: proof.token.revealed, product: "keys-for-all", quantity: added.count)
    }

    private func purchase(transactionId: String, product: String, quantity: Int) -> VerifiedPurchase {
        VerifiedPurchase(
            store: store,
            transactionId: transactionId,
            productId: product,
            purchaseDate: clock.currentDate,
            state: .active,
            environment: .production,
            quantity: quantity
        )
    }

    /// Runs with a fresh vault in a temporary encrypted file (removed afterwards).
    private func withVault<T: Sendable>(_ body: (KeyVault) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "opencat-keyvault-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let vault = try KeyVault(
            fileURL: folder.appendingPathComponent("vault.sqlite"),
            keyProvider: StaticKeyProvider(key: SymmetricKey(size: .bits256)),
            userId: "conformance",
            verifier: verifier,
            client: client,
            clock: clock
        )
        return try await body(vault)
    }

    static func code(_ code: KeyServerError.Code) -> StoreAdapterError.Code {
        switch code {
        case .unauthorized: .unauthorized
        case .rateLimited: .rateLimited
        case .serverUnavailable: .storeUnavailable
        case .timeout: .timeout
        case .network: .network
        case .malformedResponse: .malformedResponse
        case .notFound: .notFound
        case .purchaseRejected, .invalidInput: .invalidProof
        default: StoreAdapterError.Code(rawValue: code.rawValue)
        }
    }
}

extension ConformanceAdapterFactory {
    /// The key server (`config.token`): the key-server section of the matrix.
    /// The key-server section's adapter, with the run's section credentials.
    public static func keyServer(_ section: SectionCredentials) -> ConformanceAdapterFactory {
        ConformanceAdapterFactory(store: MockCredentials.keyServerStore) { environment in
            try KeyServerConformanceAdapter(environment: environment, section: section)
        }
    }
}
