extension PayPal {
    /// The answer of `POST /v1/notifications/verify-webhook-signature`.
    ///
    /// See <https://developer.paypal.com/docs/api/webhooks/v1/#verify-webhook-signature_post>.
    struct VerifyWebhookSignatureResponse: Sendable, Decodable {
        /// `SUCCESS` or `FAILURE`.
        var verificationStatus: String

        enum CodingKeys: String, CodingKey {
            case verificationStatus = "verification_status"
        }
    }
}
