import Foundation
import HTTPTypes
public import OpenCatCore
public import X509

extension AppleJWSVerifier {
    /// Whether the signing chain's certificates are checked for revocation online.
    ///
    /// Offline verification (the default) validates the chain at the payload's `signedDate` and never asks Apple.
    /// Servers that can reach Apple may also ask the OCSP responder named in each certificate (Apple's leaves and
    /// intermediates name `ocsp.apple.com`), as Apple's own library does with online checks on. Then, as there, the
    /// chain is validated at the current time, and a verified chain is not cached (every verification asks).
    public enum RevocationCheck: Sendable {
        /// No online check.
        case none
        /// OCSP through `requester` (for example ``AppleOCSPRequester`` over OpenCat's HTTP client), with
        /// swift-certificates' semantics: a verified "revoked" answer rejects the JWS; a requester's terminal error
        /// rejects it; a non-terminal error lets it pass; in `.hard` mode an answer that cannot be verified (bad
        /// signature, stale, wrong certificate) rejects it, in `.soft` mode it passes.
        case ocsp(requester: any OCSPRequester, failureMode: OCSPFailureMode)
    }
}

/// Adapts any ``OCSPRequester`` to swift-certificates' generic OCSP policy.
struct AnyOCSPRequester: OCSPRequester {
    let base: any OCSPRequester

    func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult {
        await base.query(request: request, uri: uri)
    }
}

/// Asks an OCSP responder over OpenCat's `HTTPClient`: `POST` of the DER request with
/// `Content-Type: application/ocsp-request` (RFC 6960 Appendix A.1), the DER response when the responder answers
/// 200 with `application/ocsp-response`. Only `http` and `https` responders are asked.
///
/// Fails closed by default: a responder that cannot be reached or answers an error is a terminal error, so the JWS
/// is rejected rather than accepted unchecked (`failsClosed: false` lets it pass instead).
public struct AppleOCSPRequester: OCSPRequester {
    /// The HTTP client (timeouts, retries, clock).
    public let httpClient: HTTPClient
    /// Whether an unreachable or failing responder rejects the JWS.
    public let failsClosed: Bool

    /// Creates a requester.
    public init(httpClient: HTTPClient = HTTPClient(), failsClosed: Bool = true) {
        self.httpClient = httpClient
        self.failsClosed = failsClosed
    }

    private func failure(_ message: String) -> OCSPRequesterQueryResult {
        failsClosed ? .terminalError(OCSPQueryError(message)) : .nonTerminalError(OCSPQueryError(message))
    }

    public func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult {
        guard let url = URL(string: uri), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else {
            return .terminalError(OCSPQueryError("the OCSP responder is not an http(s) URL"))
        }
        var head = HTTPRequest(method: .post, url: url)
        head.headerFields[.contentType] = "application/ocsp-request"
        head.headerFields[.accept] = "application/ocsp-response"
        do {
            // An OCSP request carries no secret and asking twice is harmless.
            let response = try await httpClient.send(head, body: Data(request), idempotent: true)
            guard response.status == .ok else {
                return failure("the OCSP responder answered \(response.status.code)")
            }
            return .response(Array(response.body))
        } catch {
            return failure("the OCSP responder could not be reached")
        }
    }

    struct OCSPQueryError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
