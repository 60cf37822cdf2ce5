/// The Google APIs' error envelope:
/// `{"error": {"code": 400, "message": "…", "status": "INVALID_ARGUMENT", "errors": [{"reason", "domain", "message"}]}}`.
///
/// See <https://cloud.google.com/apis/design/errors#http_mapping> and
/// <https://developers.google.com/android-publisher/errors>.
struct GoogleAPIErrorResponse: Decodable, Sendable {
    /// The `error` object.
    struct Status: Decodable, Sendable {
        /// The HTTP status code, repeated.
        var code: Int?
        /// A developer-facing message (never copied into OpenCat's messages: it may quote request values).
        var message: String?
        /// The canonical status name (`NOT_FOUND`, `PERMISSION_DENIED`, …).
        var status: String?
        /// The legacy per-error details, whose `reason` is the androidpublisher-specific cause.
        var errors: [ErrorProto]?
    }

    /// One entry of `error.errors`.
    struct ErrorProto: Decodable, Sendable {
        /// The specific cause (`purchaseTokenDoesNotMatchProductId`, `purchaseTokenNoLongerValid`, …).
        var reason: String?
        /// The domain (`androidpublisher`, `global`).
        var domain: String?
        /// A developer-facing message.
        var message: String?
    }

    /// The error.
    var error: Status

    /// The most specific reason the body gives: the first `errors[].reason`, else `status`.
    var reason: String? { error.errors?.lazy.compactMap(\.reason).first ?? error.status }
}
