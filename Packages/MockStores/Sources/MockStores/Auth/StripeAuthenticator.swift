import HTTPTypes
import OpenCatCore

/// Stripe's check: the secret key as `Authorization: Bearer sk_test_…` (or as the Basic user name, which Stripe
/// also accepts). A missing or wrong key gets Stripe's 401 `invalid_request_error`.
struct StripeAuthenticator: MockAuthenticator {
    let secretKey: Secret<String>

    func rejection(for request: MockRequest, context: MockAuthContext) -> MockResponse? {
        let presented = Authorization.bearer(request) ?? Authorization.basic(request)?.user
        guard let presented else {
            return Self.unauthorized(
                "You did not provide an API key. You need to provide your API key in the Authorization header, using "
                    + "Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication "
                    + "for details, or we can help at https://support.stripe.com/."
            )
        }
        guard ConstantTime.equals(presented, secretKey.revealed) else {
            return Self.unauthorized("Invalid API Key provided: \(Self.masked(presented))")
        }
        return nil
    }

    /// Stripe's 401 body: `{"error": {"message": …, "type": "invalid_request_error"}}`.
    ///
    /// Stripe also sends `WWW-Authenticate: Basic realm="Stripe"`; the mock leaves it out because Foundation's
    /// URLSession on Linux answers a Basic challenge by waiting for credentials instead of returning the 401.
    static func unauthorized(_ message: String) -> MockResponse {
        MockResponse.json(401, ["error": ["message": .string(message), "type": "invalid_request_error"]])
    }

    /// Stripe's masking of a presented key: its prefix up to the second `_`, stars, and the last four characters.
    static func masked(_ key: String) -> String {
        let parts = key.split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
        let prefix = parts.count == 3 ? "\(parts[0])_\(parts[1])_" : ""
        let rest = key.dropFirst(prefix.count)
        guard rest.count > 4 else { return prefix + String(repeating: "*", count: rest.count) }
        return prefix + String(repeating: "*", count: rest.count - 4) + rest.suffix(4)
    }
}
