import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

/// The JSON API edge every client sends through: URLs under a base path, one percent-encoder, headers, hashed
/// idempotency keys, one error seam, and cancellation that is never turned into a client error.
struct JSONAPIClientTests {
    /// A client's typed error, as the seam produces it.
    struct TestError: Error, Equatable {
        var kind: String
        var status: Int?
        var code: String?
    }

    struct Answer: Codable, Equatable {
        var name: String
        var at: Date?
    }

    static func map(_ failure: JSONAPIFailure) -> TestError {
        switch failure {
        case .invalidRequest: TestError(kind: "invalidRequest")
        case .transport(let error): TestError(kind: "transport:\(error.code)")
        case .refused(let status, let envelope, _): TestError(kind: "refused", status: status, code: envelope?.code)
        case .unreadable(let status, _, _): TestError(kind: "unreadable", status: status)
        }
    }

    func client(
        _ transport: ScriptedTransport,
        base: String = "https://api.example.com/x/",
        clock: ManualClock = ManualClock(autoAdvance: true, holdsDuringExternalWork: true)
    ) -> JSONAPIClient<TestError> {
        var headers = HTTPFields()
        headers[HTTPField.Name("x-api-key")!] = "pk_test_1"
        return JSONAPIClient(
            baseURL: URL(string: base)!,
            http: .scripted(transport, clock: clock, maxAttempts: 1),
            bearerToken: Secret("tok-123"),
            headers: headers,
            mapFailure: Self.map
        )
    }

    @Test(arguments: [
        ("https://h/x/", "v1/a", "/x/v1/a"),
        ("https://h/x", "/v1/a", "/x/v1/a"),
        ("https://h/x//", "/v1/a", "/x/v1/a"),
        ("https://h", "v1/a", "/v1/a"),
        ("https://h/", "/v1/a", "/v1/a"),
    ])
    func theBaseURLsPathIsKept(base: String, path: String, expected: String) {
        let request = APIRequest.make(.get, baseURL: URL(string: base)!, path: path)
        #expect(request.path == expected)
        #expect(request.scheme == "https" && request.authority == "h")
    }

    @Test func thePortAndAnIPv6HostAreKeptAndTheQueryIsEncodedOnce() {
        let request = APIRequest.make(
            .get,
            baseURL: URL(string: "http://[::1]:8080/api")!,
            path: "/v1/offerings",
            query: [("appUserId", "user/with space&=+é"), ("expand[]", "a~b-c._d")]
        )
        #expect(request.authority == "[::1]:8080")
        #expect(request.path == "/api/v1/offerings?appUserId=user%2Fwith%20space%26%3D%2B%C3%A9&expand%5B%5D=a~b-c._d")
        #expect(APIRequest.percentEncoded("a/b?c") == "a%2Fb%3Fc")
    }

    @Test func aCallCarriesTheBearerTheHeadersAJSONBodyAndAHashedIdempotencyKey() async throws {
        let transport = ScriptedTransport()
        transport.on(.post, "/x/v1/things", json: #"{"name":"ok","at":"2024-05-01T10:00:00.123456789+02:00"}"#)
        let answer: Answer = try await client(transport).send(
            .post,
            "v1/things",
            query: [("q", "a b")],
            body: Answer(name: "sent", at: Date(timeIntervalSince1970: 0)),
            idempotencyKey: "purchase-42"
        )
        #expect(answer.name == "ok")
        #expect(answer.at == RFC3339Timestamp.date(from: "2024-05-01T08:00:00.123456789Z"))
        let recorded = try #require(transport.requests.first)
        let fields = recorded.request.headerFields
        #expect(recorded.path == "/x/v1/things?q=a%20b")
        #expect(fields[.authorization] == "Bearer tok-123")
        #expect(fields[HTTPField.Name("x-api-key")!] == "pk_test_1")
        #expect(fields[.accept] == "application/json")
        #expect(fields[.contentType] == "application/json")
        #expect(fields[HTTPField.Name("Idempotency-Key")!] == Fingerprint.hex(of: "purchase-42"))
        #expect(Fingerprint.hex(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(recorded.bodyText == #"{"at":"1970-01-01T00:00:00.000Z","name":"sent"}"#)
    }

    @Test func aGetHasNoContentTypeAndNoIdempotencyKey() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, "/x/v1/thing", json: #"{"name":"ok"}"#)
        let _: Answer = try await client(transport).send(.get, "/v1/thing")
        let fields = try #require(transport.requests.first).request.headerFields
        #expect(fields[.contentType] == nil && fields[HTTPField.Name("Idempotency-Key")!] == nil)
    }

    @Test func refusalsTransportErrorsAndUnreadableAnswersGoThroughTheSeam() async throws {
        let transport = ScriptedTransport()
        transport.on(.get, "/x/v1/refused", status: 402, json: #"{"error":{"code":"insufficient_balance"}}"#)
        transport.on(.get, "/x/v1/plain", status: 503, json: "<html>down</html>")
        transport.on(.get, "/x/v1/bad", json: #"{"nom":"?"}"#)
        transport.on(.get, "/x/v1/gone", reply: .transportError(.connectionFailed))
        let api = client(transport)
        let refused = await #expect(throws: TestError.self) { try await api.send(.get, "v1/refused", as: Answer.self) }
        #expect(refused == TestError(kind: "refused", status: 402, code: "insufficient_balance"))
        let plain = await #expect(throws: TestError.self) { try await api.send(.get, "v1/plain", as: Answer.self) }
        #expect(plain == TestError(kind: "refused", status: 503))
        let bad = await #expect(throws: TestError.self) { try await api.send(.get, "v1/bad", as: Answer.self) }
        #expect(bad == TestError(kind: "unreadable", status: 200))
        let gone = await #expect(throws: TestError.self) { try await api.send(.get, "v1/gone", as: Answer.self) }
        #expect(gone == TestError(kind: "transport:connectionFailed"))
        let noHost = client(transport, base: "file:///tmp")
        let invalid = await #expect(throws: TestError.self) { try await noHost.send(.get, "v1", as: Answer.self) }
        #expect(invalid == TestError(kind: "invalidRequest"))
    }

    @Test func theErrorEnvelopeIsReadWithEveryMemberOptional() {
        let body = Data(#"{"error":{"code":"x","message":"m","reason":"r","field":"openai","extra":1}}"#.utf8)
        #expect(
            JSONAPIErrorEnvelope.decode(from: body)
                == JSONAPIErrorEnvelope(code: "x", message: "m", reason: "r", field: "openai")
        )
        #expect(JSONAPIErrorEnvelope.decode(from: Data(#"{"error":"flat"}"#.utf8)) == nil)
    }

    @Test func aCancelledCallThrowsCancellationErrorNotAMappedError() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(answering: [.hang])
        let api = client(transport, clock: clock)
        let call = Task { try await api.send(.get, "v1/slow", as: Answer.self) }
        #expect(await clock.waitForSleepers(1))
        try await waitUntil("the request sent") { !transport.requests.isEmpty }
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
    }

    @Test func aTransportFailureCausedByCancellationIsStillACancellation() async throws {
        /// A transport that reports its cancellation as a lost connection.
        struct LosesConnectionWhenCancelled: HTTPTransport {
            func send(_ request: HTTPRequest, body: Data?) async throws -> HTTPTransportResponse {
                try? await Task.sleep(for: .seconds(3600))  // sleep-ok: a transport that never answers
                throw HTTPTransportError(.connectionFailed, "connection lost")
            }
        }
        let clock = ManualClock()
        let api = JSONAPIClient<TestError>(
            baseURL: URL(string: "https://api.example.com")!,
            http: HTTPClient(transport: LosesConnectionWhenCancelled(), retryPolicy: .never, clock: clock),
            mapFailure: Self.map
        )
        let call = Task { try await api.exchange(.get, "/v1/slow") }
        #expect(await clock.waitForSleepers(1))
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
    }

    @Test func theClientsDescriptionAndMirrorShowNoCredential() {
        let api = client(ScriptedTransport())
        for text in [
            "\(api)", String(reflecting: api),
            {
                var out = ""; dump(api, to: &out); return out
            }(),
        ] {
            #expect(!text.contains("tok-123") && !text.contains("pk_test_1"))
        }
    }

    @Test(
        arguments: [
            ("Bearer abc", "abc"), ("bearer abc", "abc"), ("BEARER  abc ", "abc"), (" Bearer\tabc", "abc"),
            ("Bearer", nil), ("Bearer   ", nil), ("Basic abc", nil), ("Bearerabc", nil),
        ] as [(String, String?)]
    )
    func theBearerParserIsCaseInsensitiveAndTrims(header: String, token: String?) {
        #expect(HTTPAuthorization.bearerToken(in: header) == token)
    }

    @Test func constantTimeEqualsComparesBytes() {
        #expect(ConstantTime.equals("secret", "secret"))
        #expect(!ConstantTime.equals("secret", "secreT"))
        #expect(!ConstantTime.equals("secret", "secret2"))
        #expect(ConstantTime.equals(Data([1, 2, 3]), Data([1, 2, 3])))
        #expect(!ConstantTime.equals(Data([1, 2, 3]), Data([1, 2, 4])))
        #expect(HTTPAuthorization.bearerToken(in: nil) == nil)
    }
}
