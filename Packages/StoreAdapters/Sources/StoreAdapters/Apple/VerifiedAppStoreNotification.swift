/// An App Store Server Notification V2 whose signature, and those of the transaction and renewal info it carries,
/// have been verified, and whose app and environment have been checked.
public struct VerifiedAppStoreNotification: Sendable, Hashable {
    /// The decoded notification.
    public var payload: ResponseBodyV2DecodedPayload
    /// The verified transaction of `data.signedTransactionInfo`, if the notification carries one.
    public var transaction: JWSTransactionDecodedPayload?
    /// The verified renewal info of `data.signedRenewalInfo`, if the notification carries one.
    public var renewalInfo: JWSRenewalInfoDecodedPayload?
    /// The normalized purchase, when the notification carries a transaction. Its `storeStatus` is the
    /// notification's subscription `status` when present.
    public var purchase: VerifiedPurchase?
    /// The environment the notification belongs to.
    public var environment: VerifiedPurchase.Environment

    /// Creates the value.
    public init(
        payload: ResponseBodyV2DecodedPayload,
        transaction: JWSTransactionDecodedPayload?,
        renewalInfo: JWSRenewalInfoDecodedPayload?,
        purchase: VerifiedPurchase?,
        environment: VerifiedPurchase.Environment
    ) {
        self.payload = payload
        self.transaction = transaction
        self.renewalInfo = renewalInfo
        self.purchase = purchase
        self.environment = environment
    }
}
