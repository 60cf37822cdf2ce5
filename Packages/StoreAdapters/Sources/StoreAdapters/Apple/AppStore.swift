/// Namespace for the App Store's wire values and sub-objects (field enumerations, notification parts, API bodies).
///
/// The three signed payloads themselves are top-level types named as Apple names them:
/// ``JWSTransactionDecodedPayload``, ``JWSRenewalInfoDecodedPayload`` and ``ResponseBodyV2DecodedPayload``.
/// Enumerated fields are stored as their raw wire value (`rawType`, `rawEnvironment`, …) with a typed computed
/// accessor, so a value this version does not know survives decoding and encoding unchanged.
public enum AppStore {
    /// The server environment of a transaction, renewal or notification.
    ///
    /// [environment](https://developer.apple.com/documentation/appstoreserverapi/environment)
    public enum Environment: String, Sendable, Hashable, Codable, CaseIterable {
        /// Real purchases.
        case production = "Production"
        /// App Store sandbox (TestFlight, sandbox accounts).
        case sandbox = "Sandbox"
        /// StoreKit testing in Xcode.
        case xcode = "Xcode"
        /// Apple's server libraries' local testing environment.
        case localTesting = "LocalTesting"
    }
}
