extension Stripe {
    /// Stripe's error object (`api_errors` in Stripe's OpenAPI description): the `error` of an error response and
    /// a PaymentIntent's `last_payment_error`.
    ///
    /// See <https://docs.stripe.com/api/errors>. ``message`` is Stripe's text for humans and can quote request
    /// values (such as the id that was not found): OpenCat never copies it into its own errors or logs.
    public struct APIErrors: Sendable, Hashable, Codable {
        /// `api_error`, `card_error`, `idempotency_error`, `invalid_request_error`, … (raw value).
        public var type: String?
        /// A short machine-readable code, such as `resource_missing` or `rate_limit`.
        public var code: String?
        /// For card errors: the issuer's decline code, such as `insufficient_funds`.
        public var declineCode: String?
        /// Stripe's human-readable message (may quote request values).
        public var message: String?
        /// The request parameter the error relates to.
        public var param: String?
        /// A link to Stripe's documentation of ``code``.
        public var docURL: String?

        /// Creates an error object.
        public init(
            type: String? = nil,
            code: String? = nil,
            declineCode: String? = nil,
            message: String? = nil,
            param: String? = nil,
            docURL: String? = nil
        ) {
            self.type = type
            self.code = code
            self.declineCode = declineCode
            self.message = message
            self.param = param
            self.docURL = docURL
        }

        private enum CodingKeys: String, CodingKey {
            case type, code, message, param
            case declineCode = "decline_code"
            case docURL = "doc_url"
        }

        /// The store reason OpenCat reports: ``code`` (or ``type``), with ``declineCode`` appended.
        var reason: String? {
            guard let base = code ?? type else { return declineCode }
            return declineCode.map { "\(base)/\($0)" } ?? base
        }
    }
}
