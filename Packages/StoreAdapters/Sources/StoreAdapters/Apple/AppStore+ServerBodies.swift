public import OpenCatCore

extension AppStore {
    /// The body Apple POSTs to the notification URL.
    ///
    /// [responseBodyV2](https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2)
    public struct ResponseBodyV2: Codable, Hashable, Sendable {
        /// The notification, a JWS whose payload is a ``ResponseBodyV2DecodedPayload``.
        public var signedPayload: Secret<String>

        /// Creates the body.
        public init(signedPayload: Secret<String>) { self.signedPayload = signedPayload }
    }

    /// The answer of `GET /inApps/v1/transactions/{transactionId}`.
    ///
    /// [TransactionInfoResponse](https://developer.apple.com/documentation/appstoreserverapi/transactioninforesponse)
    public struct TransactionInfoResponse: Codable, Hashable, Sendable {
        /// The transaction, a JWS whose payload is a ``JWSTransactionDecodedPayload``.
        public var signedTransactionInfo: Secret<String>?

        /// Creates the response.
        public init(signedTransactionInfo: Secret<String>?) { self.signedTransactionInfo = signedTransactionInfo }
    }

    /// An App Store Server API error body.
    ///
    /// [Error codes](https://developer.apple.com/documentation/appstoreserverapi/error-codes)
    public struct ErrorPayload: Codable, Hashable, Sendable {
        /// Apple's numeric code (`4040010`, `4000006`, `4290000`, `5000000`, …).
        public var errorCode: Int64?
        /// Apple's description of the error.
        public var errorMessage: String?

        /// Creates the body.
        public init(errorCode: Int64?, errorMessage: String?) {
            self.errorCode = errorCode
            self.errorMessage = errorMessage
        }
    }
}
