import Foundation
import HTTPTypes
import LLMKeyResolver
import LLMKeyResolverHTTP
import OpenCatCore
import OpenCatTesting
import Testing

/// The HTTP API and the app client over it: status per tier, masked keys, partial updates, 422 without echo, 401.
struct APITests {
    let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_348_800))
    let logs = LogCapture()
    let authenticator = try! HS256JWTAuthenticator(secret: "a-test-secret-of-at-least-32-bytes!!")

    func api() throws -> LLMKeysAPI {
        let vault = UserKeyVault(
            store: try SQLiteLLMKeyStore(fileURL: Keys.temporaryFile("keys.sqlite")),
            cipher: try Keys.cipher()
        )
        return LLMKeysAPI(
            resolver: LLMKeyResolver(systemKeys: Keys.systemKeys, vault: vault),
            authenticator: authenticator,
            clock: clock,
            logger: logs.logger
        )
    }

    func token(_ user: String, _ tier: PlanTier, ttl: TimeInterval = 3600) -> String {
        authenticator.token(
            user: user,
            tier: tier,
            issuedAt: clock.currentDate.addingTimeInterval(min(0, ttl - 60)),
            expiresAt: clock.currentDate.addingTimeInterval(ttl)
        )
    }

    func call(_ api: LLMKeysAPI, _ method: HTTPRequest.Method, _ path: String, token: String?, body: String = "")
        async -> (Int, String)
    {
        var request = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1", path: path)
        if let token { request.headerFields[.authorization] = "Bearer \(token)" }
        let (response, data) = await api.handle(request, body: Data(body.utf8))
        return (response.status.code, String(decoding: data, as: UTF8.self))
    }

    @Test func aFullFlowAnswersTheDesignAndNeverShowsAKey() async throws {
        let api = try api()
        let starter = token("s1", .starter)
        var bodies: [String] = []
        let (code1, empty) = await call(api, .get, "/api/v1/settings/llm-keys", token: starter)
        #expect(code1 == 200 && empty == "{}")
        let (code2, saved) = await call(
            api,
            .post,
            "/api/v1/settings/llm-keys",
            token: starter,
            body: #"{"openai":"\#(Keys.openai)","google":"\#(Keys.google)"}"#
        )
        #expect(code2 == 200 && saved == #"{"google":"AIza...z01234","openai":"sk-...123456"}"#)
        let (code3, partial) = await call(
            api,
            .post,
            "/api/v1/settings/llm-keys",
            token: starter,
            body: #"{"anthropic":"\#(Keys.anthropic)","google":null}"#
        )
        #expect(code3 == 200 && partial == #"{"anthropic":"sk-...456789","openai":"sk-...123456"}"#)
        let (code4, status) = await call(api, .get, "/api/api-key-status", token: starter)
        #expect(
            code4 == 200 && status.contains(#""key_source":"user""#)
                && status.contains(#""google":{"available":false,"source":null}"#)
        )
        let (code5, invalid) = await call(
            api,
            .post,
            "/api/v1/settings/llm-keys",
            token: starter,
            body: #"{"openai":"sk-ant-api03-looks-wrong-here-xyz0000000000"}"#
        )
        #expect(code5 == 422 && invalid.contains(#""field":"openai""#) && !invalid.contains("looks-wrong"))
        let (code6, proStatus) = await call(api, .get, "/api/api-key-status", token: token("p1", .proPlus))
        #expect(code6 == 200 && proStatus.contains(#""using_system_keys":true"#))
        bodies += [empty, saved, partial, status, invalid, proStatus]
        for text in bodies + logs.all {
            for key in Keys.all { #expect(!text.contains(key)) }
        }
    }

    @Test func everyRouteNeedsAValidBearerToken() async throws {
        let api = try api()
        let expired = token("u", .pro, ttl: -1)
        let forged = HS256JWTAuthenticator.forgedCopy(of: token("u", .pro))
        for token in [nil, "", "not.a.jwt", expired, forged] {
            for (method, path) in [
                (HTTPRequest.Method.get, "/api/api-key-status"), (.get, "/api/v1/settings/llm-keys"),
                (.post, "/api/v1/settings/llm-keys"),
            ] {
                let (code, body) = await call(api, method, path, token: token)
                #expect(code == 401 && body.contains("unauthorized"))
            }
        }
        #expect(await call(api, .delete, "/api/v1/settings/llm-keys", token: token("u", .pro)).0 == 405)
        #expect(await call(api, .get, "/api/other", token: token("u", .pro)).0 == 404)
        #expect(
            await call(api, .post, "/api/v1/settings/llm-keys", token: token("u", .starter), body: #"{"mistral":"x"}"#)
                .0 == 400
        )
    }

    @Test func theAppClientDecidesTheThreeScenarios() async throws {
        let api = try api()
        func client(_ token: String) -> APIKeyStatusClient {
            APIKeyStatusClient(
                baseURL: URL(string: "http://127.0.0.1")!,
                token: Secret(token),
                http: HTTPClient(transport: APITransport(api), retryPolicy: .never, timeout: .seconds(300))
            )
        }
        #expect(try await client(token("p", .pro)).decision() == .useSystemKeys)
        let starter = client(token("s", .starter))
        #expect(try await starter.decision() == .askForKeys)
        await #expect { try await starter.save([.openai: "sk-bad"]) } throws: {
            ($0 as? APIKeyStatusError)?.code == .invalidKey && ($0 as? APIKeyStatusError)?.field == "openai"
        }
        #expect(try await starter.save([.anthropic: Keys.anthropic]) == .useOwnKeys([.anthropic]))
        #expect(try await starter.maskedKeys() == ["anthropic": "sk-...456789"])
        await #expect { try await client("nope").status() } throws: {
            ($0 as? APIKeyStatusError)?.code == .unauthorized
        }
    }

    /// The app side's round trip (the worked example `Examples/LLMFeatureGate` shows it as screens): saving a key
    /// moves a Starter user from C to B, deleting it back to C; no error or log line carries a key.
    @Test func savingAndDeletingAKeyMovesBetweenTheScenariosWithoutEchoingAKey() async throws {
        let api = try api()
        func client(_ token: String) -> APIKeyStatusClient {
            APIKeyStatusClient(
                baseURL: URL(string: "http://127.0.0.1")!,
                token: Secret(token),
                http: HTTPClient(transport: APITransport(api), retryPolicy: .never, timeout: .seconds(300))
            )
        }
        #expect(try await client(token("p", .proTrial)).decision() == .useSystemKeys)
        let starter = client(token("s", .starter))
        #expect(try await starter.decision() == .askForKeys)
        #expect(try await starter.save([.google: Keys.google]) == .useOwnKeys([.google]))
        #expect(try await starter.save([.google: nil]) == .askForKeys)
        var errors: [String] = []
        do { _ = try await starter.save([.anthropic: "sk-ant-short"]) } catch { errors.append("\(error)") }
        do { try KeyFormat.validate(Keys.openai + " ", for: .openai) } catch { errors.append("\(error)") }
        do { _ = try LLMKeyCipher.parse(Keys.openai) } catch { errors.append("\(error)") }
        #expect(errors.count == 3)
        for text in errors + logs.all {
            for key in Keys.all + ["sk-ant-short"] { #expect(!text.contains(key)) }
        }
    }

    /// The served OpenAPI document describes every route the API answers (and nothing else), and a known path asked
    /// with another method is 405 with `Allow`.
    @Test func theDocumentDescribesEveryRouteAndOtherMethodsAre405() async throws {
        let api = try api()
        let (status, document) = await call(api, .get, "/openapi.yaml", token: nil)
        #expect(status == 200)
        var documented: Set<String> = []
        var path: String?
        for line in document.split(separator: "\n") {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("components:") {
                path = nil
            } else if let path,
                let method = ["get", "post", "put", "delete"].first(where: { line.hasPrefix("    \($0):") })
            {
                documented.insert("\(method.uppercased()) \(path)")
            }
        }
        let answered = Set(LLMKeysAPI.routes.flatMap { path, methods in methods.map { "\($0) \(path)" } })
        #expect(documented == answered)
        var request = HTTPRequest(
            method: .delete,
            scheme: "http",
            authority: "127.0.0.1",
            path: "/api/v1/settings/llm-keys"
        )
        request.headerFields[.authorization] = "Bearer \(token("u1", .free))"
        let (response, _) = await api.handle(request, body: Data())
        #expect(response.status == .methodNotAllowed)
        #expect(response.headerFields[.allow] == "GET, POST")
    }
}

extension HS256JWTAuthenticator {
    /// The same token with its payload changed (tier raised), signature kept.
    static func forgedCopy(of token: String) -> String {
        let parts = token.split(separator: ".")
        let payload = Base64URL.decode(parts[1]).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return "\(parts[0]).\(Base64URL.encode(payload.replacingOccurrences(of: "pro", with: "pro_plus"))).\(parts[2])"
    }

}
