import OpenCatCore

/// The token endpoint's answer to a JWT-bearer grant: `{"access_token", "expires_in", "token_type"}`.
///
/// See <https://developers.google.com/identity/protocols/oauth2/service-account#httprest> ("Handling the
/// response").
struct GoogleOAuthTokenResponse: Decodable, Sendable {
    /// The bearer token for the Google APIs.
    var accessToken: Secret<String>
    /// Seconds until the token expires (3599 in practice).
    var expiresIn: FlexibleInt64?
    /// `"Bearer"`.
    var tokenType: String?

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case tokenType = "token_type"
    }
}
