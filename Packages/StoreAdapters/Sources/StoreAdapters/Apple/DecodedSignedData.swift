public import Foundation

/// A payload the App Store signs as a compact JWS: a transaction, renewal info or notification.
///
/// [JWSDecodedHeader](https://developer.apple.com/documentation/appstoreserverapi/jwsdecodedheader) describes the
/// signature that ``AppleJWSVerifier`` checks before such a payload is trusted.
public protocol DecodedSignedData: Decodable, Sendable {
    /// When the App Store signed the payload; the validation time of the certificate chain in
    /// ``AppleJWSVerifier/ValidationTime/signedDate`` mode.
    var signedDate: Date? { get }

    /// The largest JWS of this kind that is read at all (see ``AppleJWSVerifier/Limits``).
    static func maximumJWSBytes(_ limits: AppleJWSVerifier.Limits) -> Int
}

extension DecodedSignedData {
    /// Transactions and renewal info: ``AppleJWSVerifier/Limits/maximumSignedDataBytes``.
    public static func maximumJWSBytes(_ limits: AppleJWSVerifier.Limits) -> Int { limits.maximumSignedDataBytes }
}
