import Foundation
import HTTPTypes
import OpenCatCore
import Synchronization

/// PayPal's checks: `POST /v1/oauth2/token` needs `Basic base64(client_id:secret)` (401 `invalid_client`
/// otherwise) and issues the access token when no cassette entry answers it; every other endpoint needs
/// `Bearer <an access token the mock issued>` (401 `AUTHENTICATION_FAILURE` otherwise).
final class PayPalAuthenticator: MockAuthenticator {
    let credentials: MockCredentials.PayPal
    private let issued = Mutex(Set<String>())

    init(credentials: MockCredentials.PayPal) { self.credentials = credentials }

    static func isTokenEndpoint(_ request: MockRequest) -> Bool {
        request.method == "POST" && request.path.hasSuffix("/v1/oauth2/token")
    }

    func rejection(for request: MockRequest, context: MockAuthContext) -> MockResponse? {
        if Self.isTokenEndpoint(request) {
            guard let basic = Authorization.basic(request), basic.user == credentials.clientId,
                ConstantTime.equals(basic.password, credentials.clientSecret.revealed)
            else {
                return .json(401, ["error": "invalid_client", "error_description": "Client Authentication failed"])
            }
            return nil
        }
        guard let token = Authorization.bearer(request), issued.withLock({ $0.contains(token) }) else {
            return .json(
                401,
                [
                    "name": "AUTHENTICATION_FAILURE",
                    "message":
                        "Authentication failed due to invalid authentication credentials or a missing Authorization header.",
                    "links": [
                        ["href": "https://developer.paypal.com/api/rest/authentication/", "rel": "information_link"]
                    ],
                ]
            )
        }
        return nil
    }

    func builtInResponse(to request: MockRequest, context: MockAuthContext) -> MockResponse? {
        guard Self.isTokenEndpoint(request) else { return nil }
        if let rejection = rejection(for: request, context: context) { return rejection }
        guard request.formValue("grant_type") == "client_credentials" else {
            return .json(
                400,
                ["error": "unsupported_grant_type", "error_description": "Grant Type is NULL or not supported"]
            )
        }
        let token = credentials.accessToken.revealed
        issued.withLock { _ = $0.insert(token) }
        return .json(
            200,
            [
                "scope":
                    "https://uri.paypal.com/services/payments/payment https://uri.paypal.com/services/payments/refund",
                "access_token": .string(token),
                "token_type": "Bearer",
                "app_id": "APP-OPENCATMOCK",
                "expires_in": 32400,
                "nonce": "opencat-mock-nonce",
            ]
        )
    }

    func observe(_ response: MockResponse, to request: MockRequest) {
        guard Self.isTokenEndpoint(request), (200..<300).contains(response.status),
            let token = response.json?["access_token"]?.stringValue
        else { return }
        issued.withLock { _ = $0.insert(token) }
    }
}
