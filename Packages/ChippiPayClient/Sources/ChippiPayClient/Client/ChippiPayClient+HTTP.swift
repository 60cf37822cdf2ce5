import Foundation
import HTTPTypes
import OpenCatCore

extension ChippiPayClient {
    /// ChippiPay's API edge: the `x-api-key` and bearer headers, ``ChippiPayError``s with the credentials redacted.
    var api: JSONAPIClient<ChippiPayError> {
        var headers = HTTPFields()
        headers[HTTPField.Name("x-api-key")!] = configuration.apiKey.revealed
        headers[.contentType] = "application/json"
        return JSONAPIClient(
            baseURL: configuration.baseURL,
            http: http,
            bearerToken: configuration.bearerToken,
            headers: headers
        ) { [self] failure in ChippiPayError.from(failure, redact: redact) }
    }

    /// A path segment, percent-encoded; an empty or oversized one is refused.
    static func segment(_ text: String) throws(ChippiPayError) -> String {
        guard !text.isEmpty, text.utf8.count <= 256 else {
            throw ChippiPayError(.invalidInput, "an empty or too long id")
        }
        return APIRequest.percentEncoded(text)
    }

    /// Sends a request, with `__chipi_api_version` in its query. A POST is never repeated automatically unless
    /// `retryPOST` (for calls without effect): ChippiPay documents no idempotency header, so a lost answer is
    /// resolved by the caller (the purchase flow looks the purchase up by its transaction hash) rather than by
    /// sending again. The public API's errors are typed: a cancelled call surfaces as ``ChippiPayError/Code/cancelled``.
    func send<Response: Decodable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        query: [(String, String)] = [],
        body: (any Encodable)? = nil,
        idempotencyKey: String? = nil,
        retryPOST: Bool = false
    ) async throws(ChippiPayError) -> Response {
        do {
            return try await api.send(
                method,
                path,
                query: query + [("__chipi_api_version", configuration.apiVersion)],
                body: body,
                idempotencyKey: idempotencyKey,
                idempotent: method == .post ? retryPOST : nil
            )
        } catch let error as ChippiPayError {
            throw error
        } catch {
            throw ChippiPayError(.cancelled, "the request was cancelled")
        }
    }

    /// A server message with any of this client's credentials removed (a server may echo what it refused).
    func redact(_ message: String) -> String {
        var text = message
        for secret in [configuration.apiKey.revealed, configuration.bearerToken.revealed] where secret.count >= 4 {
            text = text.replacingOccurrences(of: secret, with: Secret<String>.placeholder)
        }
        return text
    }
}
