import Crypto
import Foundation
import OpenCatCore

/// The App Store Server API's check: `Authorization: Bearer <JWT>` signed ES256 with the registered key, header
/// `kid` = the key id, claims `iss` = the issuer id, `aud` = `appstoreconnect-v1`, `bid` = the bundle id, `exp` after
/// the server's current time. Anything else gets Apple's 401 with an empty body.
struct AppleAuthenticator: MockAuthenticator {
    let credentials: MockCredentials.Apple

    func rejection(for request: MockRequest, context: MockAuthContext) -> MockResponse? {
        accepts(request, now: context.now) ? nil : MockResponse(status: 401)
    }

    private func accepts(_ request: MockRequest, now: Date) -> Bool {
        guard let token = Authorization.bearer(request), let jws = CompactJWS(token), let header = jws.decodedHeader(),
            let claims = jws.decodedClaims()
        else { return false }
        guard header.alg == "ES256", header.kid == credentials.keyId,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature),
            credentials.publicKey.isValidSignature(signature, for: jws.signingInput)
        else { return false }
        guard claims.iss == credentials.issuerId, claims.aud == "appstoreconnect-v1",
            claims.bid == credentials.bundleId,
            let exp = claims.exp, Date(timeIntervalSince1970: TimeInterval(exp)) > now
        else { return false }
        return true
    }
}
