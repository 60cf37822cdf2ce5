import OpenCatCore

/// A bearer-token check, as the OpenCat server API and the key server API do it: `Authorization: Bearer <token>`,
/// else 401 `{"error": {"code": "unauthorized", "message": …}}`.
struct BearerTokenAuthenticator: MockAuthenticator {
    let token: Secret<String>
    let message: String

    func rejection(for request: MockRequest, context: MockAuthContext) -> MockResponse? {
        if let presented = Authorization.bearer(request), ConstantTime.equals(presented, token.revealed) {
            return nil
        }
        return .json(401, ["error": ["code": "unauthorized", "message": .string(message)]])
    }
}
