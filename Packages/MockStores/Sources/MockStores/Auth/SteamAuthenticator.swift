import Foundation
import HTTPTypes
import OpenCatCore

/// Steam's check: the publisher Web API key in the `x-webapi-key` header (or as the `key` query or form parameter).
/// A missing or wrong key gets Steam's 403 Forbidden HTML page.
struct SteamAuthenticator: MockAuthenticator {
    let publisherKey: Secret<String>

    func rejection(for request: MockRequest, context: MockAuthContext) -> MockResponse? {
        let presented = request.header("x-webapi-key") ?? request.queryValue("key") ?? request.formValue("key")
        if let presented, ConstantTime.equals(presented, publisherKey.revealed) { return nil }
        let page =
            "<html><head><title>Forbidden</title></head><body><h1>Forbidden</h1>Access is denied. Retrying will not "
            + "help. Please verify your <pre>key=</pre> parameter.</body></html>"
        return MockResponse(status: 403, headers: [.contentType: "text/html; charset=UTF-8"], body: Data(page.utf8))
    }
}
