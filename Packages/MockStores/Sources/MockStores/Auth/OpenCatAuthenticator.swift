import OpenCatCore

/// The OpenCat server API's check: `Authorization: Bearer <api key>`, else 401
/// `{"error": {"code": "unauthorized", "message": …}}`.
struct OpenCatAuthenticator: MockAuthenticator {
    let apiKey: Secret<String>

    func rejection(for request: MockRequest, context: MockAuthContext) -> MockResponse? {
        if let presented = Authorization.bearer(request), Authorization.constantTimeEquals(presented, apiKey.revealed) {
            return nil
        }
        return .json(401, ["error": ["code": "unauthorized", "message": "The API key is missing or not valid."]])
    }
}
