import OpenCatCore

extension AppStore {
    /// The answer of Get App Transaction Info (`GET /inApps/v1/transactions/appTransactions/{transactionId}`): the
    /// app transaction, signed.
    ///
    /// [AppTransactionInfoResponse](https://developer.apple.com/documentation/appstoreserverapi/apptransactioninforesponse)
    struct AppTransactionInfoResponse: Decodable, Sendable {
        /// A `JWSAppTransactionDecodedPayload` as a compact JWS.
        var signedAppTransactionInfo: Secret<String>?
    }
}
