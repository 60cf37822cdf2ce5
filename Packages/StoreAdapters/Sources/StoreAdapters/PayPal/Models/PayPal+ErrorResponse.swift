extension PayPal {
    /// A PayPal REST error body (`error` in PayPal's specifications), or an OAuth error
    /// (`{"error": "invalid_client", "error_description": …}`), which the token endpoint and expired tokens use.
    ///
    /// See <https://developer.paypal.com/api/rest/responses/>. The human-readable `message` and
    /// `details[].description` are not copied into OpenCat's errors: only ``name``, the issues and ``debugId``.
    public struct ErrorResponse: Sendable, Hashable, Codable {
        /// One detail of an error.
        public struct ErrorDetails: Sendable, Hashable, Codable {
            /// The fine-grained code, such as `ORDER_NOT_APPROVED` or `INVALID_RESOURCE_ID`.
            public var issue: String?
            /// The field at fault, as a JSON pointer.
            public var field: String?
            /// PayPal's text for humans.
            public var description: String?

            /// Creates a detail.
            public init(issue: String? = nil, field: String? = nil, description: String? = nil) {
                self.issue = issue
                self.field = field
                self.description = description
            }
        }

        /// The error's name, such as `RESOURCE_NOT_FOUND` or `UNPROCESSABLE_ENTITY`.
        public var name: String?
        /// PayPal's text for humans.
        public var message: String?
        /// PayPal's id for this failure, to quote to PayPal support.
        public var debugId: String?
        /// Details.
        public var details: [ErrorDetails]?
        /// An OAuth error code (`invalid_client`, `invalid_token`).
        public var error: String?
        /// An OAuth error's text.
        public var errorDescription: String?

        /// Creates an error body.
        public init(
            name: String? = nil,
            message: String? = nil,
            debugId: String? = nil,
            details: [ErrorDetails]? = nil,
            error: String? = nil,
            errorDescription: String? = nil
        ) {
            self.name = name
            self.message = message
            self.debugId = debugId
            self.details = details
            self.error = error
            self.errorDescription = errorDescription
        }

        private enum CodingKeys: String, CodingKey {
            case name, message, details, error
            case debugId = "debug_id"
            case errorDescription = "error_description"
        }

        /// The issues of ``details``.
        public var issues: [String] { details?.compactMap(\.issue) ?? [] }

        /// The store reason OpenCat reports: `NAME/ISSUE[,ISSUE] (debug_id …)`, or the OAuth error code.
        var reason: String? {
            var text = name ?? error
            if !issues.isEmpty { text = (text.map { $0 + "/" } ?? "") + issues.joined(separator: ",") }
            if let debugId { text = (text ?? "") + " (debug_id \(debugId))" }
            return text
        }
    }
}
