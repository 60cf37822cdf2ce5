import Foundation
import HTTPTypes
import LLMKeyResolver
import OpenCatCore
import OpenCatTesting
import Testing

/// The app-side client's edge: a cancelled check is a cancellation, never a "network" error; failures keep their
/// codes.
struct APIKeyStatusClientTests {
    @Test func aCancelledStatusCheckThrowsCancellationErrorNotNetwork() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(answering: [.hang])
        let client = APIKeyStatusClient(
            baseURL: URL(string: "https://api.example.com")!,
            token: Secret("tok"),
            http: .scripted(transport, clock: clock, maxAttempts: 1)
        )
        let check = Task { try await client.status() }
        #expect(await clock.waitForSleepers(1))
        try await waitUntil("the status request sent") { !transport.requests.isEmpty }
        check.cancel()
        await #expect(throws: CancellationError.self) { try await check.value }
    }

    @Test func aLostConnectionIsStillNetworkAndA422NamesTheField() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, "/base/api/api-key-status", reply: .transportError(.connectionFailed))
        transport.on(
            .post,
            "/base/api/v1/settings/llm-keys",
            status: 422,
            json: #"{"error":{"code":"invalid_key","field":"openai"}}"#
        )
        let client = APIKeyStatusClient(
            baseURL: URL(string: "https://api.example.com/base/")!,
            token: Secret("tok"),
            http: .scripted(transport, maxAttempts: 1)
        )
        let lost = await #expect(throws: APIKeyStatusError.self) { try await client.status() }
        #expect(lost?.code == .network)
        let refused = await #expect(throws: APIKeyStatusError.self) { try await client.save([.openai: "sk-x"]) }
        #expect(refused?.code == .invalidKey && refused?.field == "openai")
        let posted = try #require(transport.requests(matching: "llm-keys").first)
        #expect(posted.path == "/base/api/v1/settings/llm-keys")
        #expect(posted.bodyText == #"{"openai":"sk-x"}"#)
        #expect(posted.request.headerFields[.authorization] == "Bearer tok")
    }
}
