import Foundation
import OpenCatCore

/// Reading the `Authorization` header of a mock request, with OpenCatCore's one parser (``HTTPAuthorization``);
/// presented secrets are compared with ``ConstantTime``.
enum Authorization {
    /// The credentials after `Bearer ` (scheme case-insensitive), or `nil`.
    static func bearer(_ request: MockRequest) -> String? {
        HTTPAuthorization.bearerToken(in: request.header("Authorization"))
    }

    /// The `user:password` pair of `Basic` credentials, or `nil`.
    static func basic(_ request: MockRequest) -> (user: String, password: String)? {
        guard let encoded = HTTPAuthorization.credentials(in: request.header("Authorization"), scheme: "basic"),
            let data = Data(base64Encoded: encoded),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
