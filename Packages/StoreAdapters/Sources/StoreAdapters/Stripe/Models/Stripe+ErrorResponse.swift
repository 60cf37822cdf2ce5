extension Stripe {
    /// The body of a Stripe error response: `{"error": {…}}` (`error` in Stripe's OpenAPI description).
    ///
    /// See <https://docs.stripe.com/api/errors>.
    public struct ErrorResponse: Sendable, Hashable, Codable {
        /// The error.
        public var error: APIErrors

        /// Creates an error response.
        public init(error: APIErrors) { self.error = error }
    }
}
