import Foundation
import OpenCatCore

/// A compact JWS/JWT split into its parts (`header.payload.signature`, base64url), not yet verified.
struct CompactJWS {
    /// The header's JSON.
    var header: Data
    /// The payload's JSON.
    var payload: Data
    /// The raw signature bytes.
    var signature: Data
    /// `header.payload` as sent: the bytes the signature covers.
    var signingInput: Data

    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { return nil }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = Data("\(parts[0]).\(parts[1])".utf8)
    }

    /// The JWT header fields the mock checks.
    struct Header: Decodable {
        var alg: String?
        var kid: String?
        var typ: String?
    }

    /// The JWT claims the mock checks (Google assertions and App Store Server API tokens).
    struct Claims: Decodable {
        var iss: String?
        var aud: String?
        var scope: String?
        var bid: String?
        var iat: Int64?
        var exp: Int64?
    }

    func decodedHeader() -> Header? { try? JSONDecoder().decode(Header.self, from: header) }
    func decodedClaims() -> Claims? { try? JSONDecoder().decode(Claims.self, from: payload) }
}
