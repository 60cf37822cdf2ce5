import Foundation
import HTTPTypes
import OpenCatCore

extension ChippiPayClient {
    /// ChippiPay's API edge: the `x-api-key` and bearer headers, `__chipi_api_version` on every call,
    /// ``ChippiPayError``s with the credentials redacted, a cancelled call as ``ChippiPayError/Code/cancelled``. A POST
    /// is never repeated automatically unless the call says `idempotent: true` (for calls without effect): ChippiPay
    /// documents no idempotency header, so a lost answer is resolved by the caller (the purchase flow looks the
    /// purchase up by its transaction hash) rather than by sending again.
    var api: JSONAPIClient<ChippiPayError> {
        var headers = HTTPFields()
        headers[HTTPField.Name("x-api-key")!] = configuration.apiKey.revealed
        headers[.contentType] = "application/json"
        var api = JSONAPIClient(
            baseURL: configuration.baseURL,
            http: http,
            bearerToken: configuration.bearerToken,
            headers: headers
        ) { [self] failure in ChippiPayError.from(failure, redact: redact) }
        api.commonQuery = [("__chipi_api_version", configuration.apiVersion)]
        api.repeatsKeyedPOSTs = false
        api.cancellation = { ChippiPayError(.cancelled, "the request was cancelled") }
        return api
    }

    /// A path segment, percent-encoded; an empty or oversized one is refused.
    static func segment(_ text: String) throws(ChippiPayError) -> String {
        guard !text.isEmpty, text.utf8.count <= 256 else {
            throw ChippiPayError(.invalidInput, "an empty or too long id")
        }
        return APIRequest.percentEncoded(text)
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
