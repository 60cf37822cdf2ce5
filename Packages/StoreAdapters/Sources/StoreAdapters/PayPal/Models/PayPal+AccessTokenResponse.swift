import OpenCatCore

extension PayPal {
    /// The answer of `POST /v1/oauth2/token` (client credentials).
    ///
    /// See <https://developer.paypal.com/api/rest/authentication/>.
    struct AccessTokenResponse: Sendable, Decodable {
        /// The bearer token.
        var accessToken: Secret<String>
        /// `Bearer`.
        var tokenType: String?
        /// Seconds until the token expires.
        var expiresIn: Int64

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresIn = "expires_in"
        }
    }
}
