import Foundation
public import OpenCatCore
import SwiftASN1
import X509

extension AppleStoreAdapter: ConfigurableStoreAdapter {
    /// The App Store.
    public static var verifiedStore: Store { .apple }

    /// A signed transaction (offline), a transaction id or a subscription's transaction id (App Store Server API).
    public static var acceptedProofKinds: Set<PurchaseProof.Kind> {
        [.appleSignedTransaction, .appleTransactionId, .appleSubscriptionStatus]
    }

    /// An App Store adapter from settings:
    /// - `bundleId` (required);
    /// - `rootCertificates`: the roots to trust (Apple Root CA - G3), as paths of PEM or DER files, or PEM text
    ///   when inline secrets are allowed (required, at least one);
    /// - `environment`: `production` (default), `sandbox` or `any`;
    /// - `appAppleId` (an integer);
    /// - `validationTime`: `now` (default), `signed-date` or an ISO 8601 date;
    /// - `issuerId`, `keyId` and the secret `privateKey` (the `.p8` PEM), together: App Store Server API lookups;
    /// - `productionBaseURL`, `sandboxBaseURL`.
    public init(configuration settings: StoreAdapterConfiguration, context: StoreAdapterConfiguration.Context)
        throws(StoreAdapterError)
    {
        let environment: VerifiedPurchase.Environment?
        switch try settings.optionalString("environment") ?? "production" {
        case "production": environment = .production
        case "sandbox": environment = .sandbox
        case "any": environment = nil
        case let other: throw settings.error("environment", "\(other) is not production, sandbox or any")
        }
        let validationTime: AppleJWSVerifier.ValidationTime
        switch try settings.optionalString("validationTime") ?? "now" {
        case "now": validationTime = .now
        case "signed-date": validationTime = .signedDate
        case let text:
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw settings.error("validationTime", "now, signed-date or an ISO 8601 date")
            }
            validationTime = .fixed(date)
        }
        var credentials: APICredentials?
        let issuerId = try settings.optionalString("issuerId")
        let keyId = try settings.optionalString("keyId")
        let privateKey = try settings.optionalSecret("privateKey", context)
        if let issuerId, let keyId, let privateKey {
            do {
                credentials = try APICredentials(issuerId: issuerId, keyId: keyId, privateKeyPEM: privateKey)
            } catch {
                throw settings.error("privateKey", "not a P-256 PEM private key")
            }
        } else if issuerId != nil || keyId != nil || privateKey != nil {
            throw settings.error("issuerId / keyId / privateKey", "set all three, or none")
        }
        self.init(
            configuration: Configuration(
                bundleId: try settings.string("bundleId"),
                rootCertificates: try Self.rootCertificates(settings, context),
                environment: environment,
                appAppleId: try settings.integer("appAppleId", as: Int64.self),
                validationTime: validationTime,
                apiCredentials: credentials,
                productionBaseURL: try settings.url(
                    "productionBaseURL",
                    default: Configuration.defaultProductionBaseURL
                ),
                sandboxBaseURL: try settings.url("sandboxBaseURL", default: Configuration.defaultSandboxBaseURL),
                httpClient: context.httpClient
            ),
            logger: context.logger
        )
    }

    private static func rootCertificates(
        _ settings: StoreAdapterConfiguration,
        _ context: StoreAdapterConfiguration.Context
    ) throws(StoreAdapterError) -> [Certificate] {
        guard case .array(let entries)? = settings.settings["rootCertificates"], !entries.isEmpty else {
            throw settings.error("rootCertificates", "expected a list of certificate files")
        }
        var roots: [Certificate] = []
        for (index, entry) in entries.enumerated() {
            let key = "rootCertificates[\(index)]"
            guard let text = entry.stringValue else { throw settings.error(key, "expected a file path") }
            let data: Data
            if text.hasPrefix("-----BEGIN") {
                guard context.allowsInlineSecrets else { throw settings.error(key, "expected a file path") }
                data = Data(text.utf8)
            } else {
                data = try settings.file(key, text, holdsSecret: false, context)
            }
            let pem = String(decoding: data, as: UTF8.self)
            do {
                roots.append(
                    pem.contains("-----BEGIN CERTIFICATE-----")
                        ? try Certificate(pemEncoded: pem) : try Certificate(derEncoded: Array(data))
                )
            } catch {
                throw settings.error(key, "not a PEM or DER certificate")
            }
        }
        return roots
    }
}
