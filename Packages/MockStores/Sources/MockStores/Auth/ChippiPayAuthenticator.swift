import OpenCatCore

/// ChippiPay's check: every call under `/v1/` carries `x-api-key: pk_…` and `Authorization: Bearer <sk_… or a
/// JWT>`; a missing or wrong one is 401 `{"statusCode": 401, "message": …, "code": "INVALID_API_KEY"}`. Calls
/// outside `/v1/` (the Starknet node served beside it) are not ChippiPay's to check.
struct ChippiPayAuthenticator: MockAuthenticator {
    let credentials: MockCredentials.ChippiPay

    func rejection(for request: MockRequest, context: MockAuthContext) -> MockResponse? {
        guard request.path.hasPrefix("/v1/") else { return nil }
        guard let apiKey = request.header("x-api-key"),
            ConstantTime.equals(apiKey, credentials.apiKey.revealed)
        else { return Self.unauthorized("Invalid API key") }
        guard let bearer = Authorization.bearer(request),
            ConstantTime.equals(bearer, credentials.secretKey.revealed)
        else { return Self.unauthorized("Invalid bearer token") }
        return nil
    }

    static func unauthorized(_ message: String) -> MockResponse {
        .json(
            401,
            ["statusCode": 401, "message": .string(message), "code": "INVALID_API_KEY", "error": "Unauthorized"]
        )
    }
}
