import Crypto
import Foundation
import HTTPTypes
import MockStores
import MockStoresServer
import OpenCatCore
import OpenCatTesting
import _CryptoExtras

/// Keys generated once per test run (RSA key generation is slow).
enum TestKeys {
    static let google = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let otherRSA = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let apple = P256.Signing.PrivateKey()
    static let otherP256 = P256.Signing.PrivateKey()
    static let appleCA = try! MockAppleCA()

    static let stripeKey = "sk_test_opencatmock0000000001"
    static let steamKey = "opencat-mock-steam-publisher-key"
    static let openCatKey = "ocat_test_mock_key"
    static let googleEmail = "play-verifier@opencat-mock.iam.gserviceaccount.com"

    static var credentials: MockCredentials {
        MockCredentials(
            stripeSecretKey: Secret(stripeKey),
            payPal: .init(clientId: "mock-client-id", clientSecret: Secret("mock-client-secret")),
            google: .init(clientEmail: googleEmail, publicKey: google.publicKey),
            steamPublisherKey: Secret(steamKey),
            apple: .init(
                keyId: "MOCKKEY123",
                issuerId: "57246542-96fe-1a63-e053-0824d011072a",
                bundleId: "dev.opencat.demo",
                publicKey: apple.publicKey
            ),
            openCatAPIKey: Secret(openCatKey)
        )
    }
}

/// Small helpers for real loopback requests.
enum Loopback {
    /// A client that does one attempt per request (no retries), on the system clock. Its timeout is a ceiling for a
    /// mock that never answers, not what these tests measure: generous, so a starved one-core run never reaches it.
    static let client = HTTPClient(retryPolicy: .never, timeout: .seconds(300))

    static func request(
        _ method: HTTPRequest.Method,
        _ server: MockStoreServer,
        _ target: String,
        headers: [String: String] = [:]
    ) -> HTTPRequest {
        var request = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:\(server.port)", path: target)
        for (name, value) in headers { request.headerFields[HTTPField.Name(name)!] = value }
        return request
    }

    static func send(
        _ method: HTTPRequest.Method,
        _ server: MockStoreServer,
        _ target: String,
        headers: [String: String] = [:],
        body: String? = nil,
        client: HTTPClient = Loopback.client
    ) async throws -> HTTPTransportResponse {
        try await client.send(request(method, server, target, headers: headers), body: body.map { Data($0.utf8) })
    }
}

extension HTTPTransportResponse {
    var json: JSONValue? { try? JSONValue(parsing: body) }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Builds JWTs for the auth tests.
enum TestJWT {
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func base64URLDecode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    static func rs256(_ claims: JSONValue, key: _RSA.Signing.PrivateKey) throws -> String {
        let input =
            base64URL(JSONValue(["alg": "RS256", "typ": "JWT", "kid": "k1"]).serialized()) + "."
            + base64URL(claims.serialized())
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + base64URL(signature.rawRepresentation)
    }

    static func es256(_ claims: JSONValue, kid: String, key: P256.Signing.PrivateKey) throws -> String {
        let header: JSONValue = ["alg": "ES256", "kid": .string(kid), "typ": "JWT"]
        let input = base64URL(header.serialized()) + "." + base64URL(claims.serialized())
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + base64URL(signature.rawRepresentation)
    }
}

extension JSONValue {
    init(_ members: [String: JSONValue]) { self = .object(members) }
}

extension Cassette {
    /// A one-store cassette with interactions, expecting a verified active purchase.
    static func script(_ store: Store, _ interactions: [Cassette.Interaction]) -> Cassette {
        Cassette(
            store: store,
            scenario: "test",
            input: .init(kind: .stripePaymentIntent, token: "pi_test"),
            interactions: interactions,
            expect: .verified("active")
        )
    }
}

extension Cassette.Interaction {
    static func get(
        _ path: String,
        query: [String: [String]]? = nil,
        status: Int = 200,
        json: JSONValue = ["ok": true],
        times: Int = 1
    ) -> Self {
        Self(
            request: .init(method: "GET", path: path, query: query.map(Cassette.NameValues.init)),
            response: .init(status: status, json: json),
            times: times
        )
    }
}
