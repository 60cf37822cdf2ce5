import Crypto
import _CryptoExtras
import Foundation
public import MockStores
import OpenCatTesting
import OpenCatCore

/// Credentials generated for one suite run: the mock stores accept them, the adapters use them, nothing is
/// committed. Cassettes refer to them through placeholders (`{{stripe.secretKey}}`, …).
public struct ConformanceCredentials: Sendable {
    /// The Apple test CA that signs every App Store payload of the run.
    public let appleCA: MockAppleCA
    let appleAPIKey: P256.Signing.PrivateKey
    let appleWrongAPIKey: P256.Signing.PrivateKey
    let googleKey: _RSA.Signing.PrivateKey
    let googleWrongKey: _RSA.Signing.PrivateKey
    /// Placeholder name → value.
    public private(set) var variables: [String: String]

    /// The Apple bundle id the App Store Server API token must name.
    public static let appleBundleId = "dev.opencat.auralogic"

    /// Generates a fresh set (RSA key generation takes a moment: make one per run).
    public init() throws {
        appleCA = try MockAppleCA()
        appleAPIKey = P256.Signing.PrivateKey()
        appleWrongAPIKey = P256.Signing.PrivateKey()
        googleKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        googleWrongKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        func random(_ bytes: Int) -> String {
            (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        }
        variables = [
            "stripe.secretKey": "sk_test_opencat_\(random(12))",
            "stripe.wrongSecretKey": "sk_test_opencat_\(random(12))",
            "paypal.clientId": "opencat-paypal-client-\(random(6))",
            "paypal.clientSecret": "opencat-paypal-secret-\(random(12))",
            "paypal.wrongClientSecret": "opencat-paypal-secret-\(random(12))",
            "steam.publisherKey": random(16).uppercased(),
            "steam.wrongPublisherKey": random(16).uppercased(),
            "apple.issuerId": UUID().uuidString.lowercased(),
            "apple.keyId": String(random(5).uppercased().prefix(10)),
            "apple.privateKey": appleAPIKey.pemRepresentation,
            "apple.wrongPrivateKey": appleWrongAPIKey.pemRepresentation,
            "google.clientEmail": "conformance@opencat-test.iam.gserviceaccount.com",
            "google.privateKey": googleKey.pemRepresentation,
            "google.wrongPrivateKey": googleWrongKey.pemRepresentation,
            "opencat.apiKey": "ocat_test_\(random(12))",
        ]
    }

    /// The same credentials with some placeholder values replaced (keys the mock checks included).
    public func overriding(_ values: [String: String]) -> ConformanceCredentials {
        var copy = self
        copy.variables.merge(values) { $1 }
        return copy
    }

    /// The credentials the mock stores check.
    public func mockCredentials(tokenPath: String) -> MockCredentials {
        var credentials = MockCredentials()
        credentials.stripeSecretKey = Secret(variables["stripe.secretKey"]!)
        credentials.payPal = .init(clientId: variables["paypal.clientId"]!, clientSecret: Secret(variables["paypal.clientSecret"]!))
        credentials.google = .init(clientEmail: variables["google.clientEmail"]!, publicKey: googleKey.publicKey, tokenPath: tokenPath)
        credentials.steamPublisherKey = Secret(variables["steam.publisherKey"]!)
        credentials.apple = .init(
            keyId: variables["apple.keyId"]!, issuerId: variables["apple.issuerId"]!, bundleId: Self.appleBundleId,
            publicKey: appleAPIKey.publicKey)
        credentials.openCatAPIKey = Secret(variables["opencat.apiKey"]!)
        return credentials
    }
}
