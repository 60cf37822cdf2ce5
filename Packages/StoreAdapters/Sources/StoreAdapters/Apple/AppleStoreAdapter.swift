import Foundation
public import Logging
public import OpenCatCore

/// Verifies App Store (StoreKit 2) purchases.
///
/// - `PurchaseProof/Kind/appleSignedTransaction`: the app's signed transaction (JWS) is verified offline with
///   ``AppleJWSVerifier`` (chain to the configured roots, Apple's OIDs, ES256), then checked for bundle id,
///   environment and product.
/// - `PurchaseProof/Kind/appleTransactionId`: the transaction is fetched with the App Store Server API
///   (`GET /inApps/v1/transactions/{id}`, ES256 bearer token; production first, then the sandbox when Apple
///   answers 4040010), and its signed transaction verified the same way.
///
/// Refunds (`revocationDate`) and expiry are states of the result, not errors. App Store Server Notifications V2
/// are verified with ``verifyNotification(signedPayload:)``.
public struct AppleStoreAdapter: StoreAdapter {
    /// Always `Store/apple`.
    public var store: Store { .apple }
    /// The configuration.
    public let configuration: Configuration
    /// The JWS verifier (and its chain cache) this adapter uses.
    public let verifier: AppleJWSVerifier
    let logger: Logger
    let http: StoreHTTP

    /// Creates the adapter.
    /// - Parameters:
    ///   - configuration: app, roots, validation time, optional API credentials and HTTP client.
    ///   - logger: where diagnostics go (never a JWS, key or transaction id); a no-op logger by default.
    public init(
        configuration: Configuration,
        logger: Logger = Logger(label: "dev.opencat.apple", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.configuration = configuration
        self.logger = logger
        self.http = StoreHTTP(client: configuration.httpClient, store: .apple)
        self.verifier = AppleJWSVerifier(
            rootCertificates: configuration.rootCertificates,
            validationTime: configuration.validationTime,
            clock: configuration.httpClient.clock,
            chainCacheCapacity: configuration.chainCacheCapacity,
            limits: configuration.limits,
            revocationCheck: configuration.revocationCheck,
            logger: logger
        )
    }

    /// Verifies a signed transaction or looks a transaction id up, then checks app, environment and product.
    /// - Throws: ``StoreAdapterError``: `invalidProof` (bad JWS, chain, OID or signature; the failed check is in
    ///   `storeReason`), `wrongApplication`, `productMismatch`, and for look-ups `notFound`, `unauthorized`,
    ///   `rateLimited`, `storeUnavailable`, `timeout`, `network`, `malformedResponse`.
    /// The `PurchaseProof/context` key under which a signed renewal info (JWS) may accompany a signed
    /// transaction.
    public static let renewalInfoContextKey = "signedRenewalInfo"

    public func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        guard proof.store == .apple else {
            throw StoreAdapterError(
                .invalidProof,
                store: .apple,
                "the proof is not an App Store proof",
                storeReason: "wrongStore"
            )
        }
        switch proof.kind {
        case .appleSignedTransaction:
            // A subscription's renewal info (StoreKit's `Product.SubscriptionInfo.RenewalInfo` JWS) may travel in
            // the proof's context; it decides grace period and billing retry once the period has ended.
            let purchase = try await verifySignedTransaction(
                proof.token,
                signedRenewalInfo: proof.context[Self.renewalInfoContextKey].map(Secret.init),
                expectedProductId: proof.productId
            )
            return try Self.checkPurchaser(of: purchase, expected: proof.expectedPurchaser)
        case .appleSubscriptionStatus:
            return try await verifySubscriptionStatus(proof)
        case .appleTransactionId:
            let transaction = try await lookUpTransaction(id: proof.token)
            let purchase = try purchase(transaction: transaction, renewalInfo: nil, expectedProductId: proof.productId)
            return try Self.checkPurchaser(of: purchase, expected: proof.expectedPurchaser)
        default:
            throw StoreAdapterError(
                .invalidProof,
                store: .apple,
                "the App Store adapter does not take \(proof.kind) proofs",
                storeReason: "unsupportedProofKind"
            )
        }
    }

    /// Verifies a signed transaction offline, optionally with its subscription's signed renewal info (which
    /// decides between grace period, billing retry and expired).
    /// - Parameters:
    ///   - signedTransaction: the `JWSTransaction`.
    ///   - signedRenewalInfo: the matching `JWSRenewalInfo`, if known.
    ///   - expectedProductId: the product the caller expects, checked when given.
    /// - Returns: the normalized purchase.
    /// - Throws: ``StoreAdapterError`` `invalidProof`, `wrongApplication` or `productMismatch`.
    public func verifySignedTransaction(
        _ signedTransaction: Secret<String>,
        signedRenewalInfo: Secret<String>? = nil,
        expectedProductId: String? = nil
    ) async throws -> VerifiedPurchase {
        let transaction = try await verifiedTransaction(signedTransaction)
        let renewalInfo = try await signedRenewalInfo.asyncMap { try await verifiedRenewalInfo($0, for: transaction) }
        return try purchase(transaction: transaction, renewalInfo: renewalInfo, expectedProductId: expectedProductId)
    }

    /// Fetches a transaction with the App Store Server API and verifies its signed transaction.
    ///
    /// Production is asked first and the sandbox when Apple answers 4040010 (transaction id not found), unless
    /// ``Configuration/environment`` restricts to one.
    /// - Parameter transactionId: the App Store transaction id (digits).
    /// - Returns: the verified transaction, checked for bundle id and environment.
    /// - Throws: ``StoreAdapterError``: `notFound` (4040010), `invalidProof` (4000006, or a bad signed
    ///   transaction), `rateLimited` (4290000), `storeUnavailable` (5000000, 5000001), `unauthorized` (401, or no
    ///   credentials configured), `timeout`, `network`, `malformedResponse`, `wrongApplication`.
    public func lookUpTransaction(id transactionId: Secret<String>) async throws -> JWSTransactionDecodedPayload {
        _ = try serverAPI()
        let id = try Self.checkedTransactionId(transactionId.revealed)
        let signed = try await askingEachEnvironment { api, _, baseURL in
            try await api.transactionInfo(transactionId: id, baseURL: baseURL)
        }
        return try await verifiedTransaction(signed)
    }

    // MARK: - Checks

    /// The reference time for expiry: the fixed validation time when one is configured, else the clock's now.
    private var now: Date {
        if case .fixed(let date) = configuration.validationTime { return date }
        return configuration.httpClient.clock.currentDate
    }

    func verifiedTransaction(_ jws: Secret<String>) async throws -> JWSTransactionDecodedPayload {
        try checkedTransaction(try await verifier.verify(jws, as: JWSTransactionDecodedPayload.self))
    }

    /// Checks a verified transaction: signed after its purchase, for this app, from an accepted environment.
    func checkedTransaction(_ transaction: JWSTransactionDecodedPayload) throws -> JWSTransactionDecodedPayload {
        try ApplePurchaseMapping.checkSignedAfterPurchase(transaction)
        try checkApplication(
            bundleId: transaction.bundleId,
            environment: ApplePurchaseMapping.environment(transaction.rawEnvironment),
            what: "transaction"
        )
        return transaction
    }

    func verifiedRenewalInfo(
        _ jws: Secret<String>,
        for transaction: JWSTransactionDecodedPayload?
    ) async throws -> JWSRenewalInfoDecodedPayload {
        try checkedRenewalInfo(try await verifier.verify(jws, as: JWSRenewalInfoDecodedPayload.self), for: transaction)
    }

    /// Checks verified renewal info: from an accepted environment, and of `transaction`'s subscription if given.
    func checkedRenewalInfo(
        _ renewalInfo: JWSRenewalInfoDecodedPayload,
        for transaction: JWSTransactionDecodedPayload?
    ) throws -> JWSRenewalInfoDecodedPayload {
        if let expected = configuration.environment,
            ApplePurchaseMapping.environment(renewalInfo.rawEnvironment) != expected
        {
            throw StoreAdapterError(
                .wrongApplication,
                store: .apple,
                "the renewal info is not from the \(expected) environment",
                storeReason: "environmentMismatch"
            )
        }
        if let transaction, renewalInfo.originalTransactionId != transaction.originalTransactionId {
            throw StoreAdapterError(
                .invalidProof,
                store: .apple,
                "the renewal info belongs to another subscription",
                storeReason: "renewalInfoMismatch"
            )
        }
        return renewalInfo
    }

    func checkApplication(bundleId: String?, environment: VerifiedPurchase.Environment, what: String) throws {
        guard bundleId == configuration.bundleId else {
            throw StoreAdapterError(
                .wrongApplication,
                store: .apple,
                "the \(what) belongs to another app (bundle id)",
                storeReason: "bundleIdMismatch"
            )
        }
        if let expected = configuration.environment, environment != expected {
            throw StoreAdapterError(
                .wrongApplication,
                store: .apple,
                "the \(what) is not from the \(expected) environment",
                storeReason: "environmentMismatch"
            )
        }
    }

    /// Binds the purchase to the expected buyer: with ``PurchaseProof/expectedPurchaser`` set, the transaction's
    /// `appAccountToken` (a UUID, compared case-insensitively) must be that value; a transaction without one
    /// cannot prove the binding and is refused too.
    static func checkPurchaser(of purchase: VerifiedPurchase, expected: String?) throws -> VerifiedPurchase {
        guard let expected else { return purchase }
        guard let purchaser = purchase.purchaser, purchaser == expected.lowercased() else {
            throw StoreAdapterError(
                .purchaserMismatch,
                store: .apple,
                purchase.purchaser == nil
                    ? "the transaction carries no appAccountToken to bind it to the expected buyer"
                    : "the transaction's appAccountToken is another buyer's",
                storeReason: purchase.purchaser == nil ? "appAccountTokenMissing" : "appAccountTokenMismatch"
            )
        }
        return purchase
    }

    func purchase(
        transaction: JWSTransactionDecodedPayload,
        renewalInfo: JWSRenewalInfoDecodedPayload?,
        expectedProductId: String?
    ) throws -> VerifiedPurchase {
        let purchase = try ApplePurchaseMapping.purchase(transaction: transaction, renewalInfo: renewalInfo, now: now)
        if let expectedProductId, expectedProductId != purchase.productId {
            throw StoreAdapterError(
                .productMismatch,
                store: .apple,
                "the transaction is for another product",
                storeReason: "productIdMismatch"
            )
        }
        return purchase
    }
}

extension Optional {
    /// `map` for an async transform.
    func asyncMap<Result>(_ transform: (Wrapped) async throws -> Result) async rethrows -> Result? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
