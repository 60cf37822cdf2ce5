/// The token endpoint's error body (RFC 6749 §5.2): `{"error": "invalid_grant", "error_description": "…"}`.
///
/// See <https://developers.google.com/identity/protocols/oauth2/service-account#error-codes>.
struct GoogleOAuthErrorResponse: Decodable, Sendable {
    /// The OAuth error code (`invalid_grant`, `invalid_client`, `unauthorized_client`, …).
    var error: String
    /// Google's explanation (kept out of OpenCat's messages).
    var errorDescription: String?

    private enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }
}
