import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

@testable import OpenCatServer

/// The HTTP edge a hostile client meets: JSON bodies only as `application/json` (415), strict JSON (a repeated member
/// or a fraction where a count goes is 400), unknown routes and methods answered in the error envelope (404, 405 with
/// `Allow`). Nothing refused is applied.
struct HTTPEdgeTests {
    static let spend = #"{"amount":1,"feature":"echo","app":"voiceuwu","userId":"ada"}"#

    func withServer(_ body: @escaping @Sendable (any TestClientProtocol, SQLiteLedgerStore) async throws -> Void)
        async throws
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-edge-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let ledger = try SQLiteLedgerStore(fileURL: folder.appendingPathComponent("ledger.sqlite"))
        _ = try await ledger.redeem(store: "apple", transactionId: "t1", userId: "ada", amount: 10)
        let server = OpenCatServerApplication(
            ledger: ledger,
            tokens: BearerTokens(["tok-ada-0123": "ada"]),
            databaseKind: "sqlite",
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        try await Application(router: server.router()).test(.router) { client in try await body(client, ledger) }
    }

    func spend(
        _ client: any TestClientProtocol,
        _ body: ByteBuffer,
        contentType: String?,
        key: String
    ) async throws -> (HTTPResponse.Status, String) {
        var headers: HTTPFields = [.authorization: "Bearer tok-ada-0123"]
        if let contentType { headers[.contentType] = contentType }
        headers[HTTPField.Name("Idempotency-Key")!] = key
        return try await client.execute(uri: "/api/v1/wallet/spend", method: .post, headers: headers, body: body) {
            ($0.status, String(buffer: $0.body))
        }
    }

    @Test func aSpendThatIsNotJSONIsRefusedWith415AndNotApplied() async throws {
        try await withServer { client, ledger in
            let utf16 = ByteBuffer(bytes: Array(Self.spend.data(using: .utf16)!))
            let cases: [(String?, ByteBuffer)] = [
                (nil, ByteBuffer(string: Self.spend)),
                ("text/plain", ByteBuffer(string: Self.spend)),
                ("application/xml", ByteBuffer(string: "<spend amount=\"1\"/>")),
                ("application/x-www-form-urlencoded", ByteBuffer(string: "amount=1&feature=echo&app=voiceuwu")),
                ("application/json; charset=utf-16", utf16),
            ]
            for (index, (contentType, body)) in cases.enumerated() {
                let (status, answer) = try await spend(client, body, contentType: contentType, key: "bad-\(index)")
                #expect(status == .unsupportedMediaType, "\(contentType ?? "none")")
                #expect(answer.contains(#""code":"unsupported_media_type""#))
            }
            // UTF-16 labelled as JSON is not UTF-8 JSON.
            let (utf16Status, _) = try await spend(client, utf16, contentType: "application/json", key: "bad-utf16")
            #expect(utf16Status == .badRequest)
            #expect(try await ledger.balance(of: "ada") == 10)
            let (status, _) = try await spend(
                client,
                ByteBuffer(string: Self.spend),
                contentType: "application/json; charset=utf-8",
                key: "good"
            )
            #expect(status == .ok)
            #expect(try await ledger.balance(of: "ada") == 9)
        }
    }

    @Test func repeatedMembersAndFractionsAreRefusedWith400() async throws {
        try await withServer { client, ledger in
            let bodies = [
                #"{"amount":1,"amount":9,"feature":"echo","app":"voiceuwu","userId":"ada"}"#,
                #"{"amount":1,"feature":"echo","app":"voiceuwu","userId":"ada","\u0061mount":2}"#,
                #"{"amount":1.0,"feature":"echo","app":"voiceuwu","userId":"ada"}"#,
                #"{"amount":1e0,"feature":"echo","app":"voiceuwu","userId":"ada"}"#,
                #"{"amount":1,"feature":"echo","app":"voiceuwu","userId":"ada"} trailing"#,
            ]
            for (index, body) in bodies.enumerated() {
                let (status, answer) = try await spend(
                    client,
                    ByteBuffer(string: body),
                    contentType: "application/json",
                    key: "strict-\(index)"
                )
                #expect(status == .badRequest, "\(body)")
                #expect(answer.contains(#""code":"invalid_input""#))
            }
            #expect(try await ledger.balance(of: "ada") == 10)
        }
    }

    @Test func unknownRoutesAndMethodsAnswerTheErrorEnvelope() async throws {
        try await withServer { client, _ in
            try await client.execute(uri: "/api/v1/nothing-here", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType] == "application/json")
                #expect(String(buffer: response.body).contains(#""code":"not_found""#))
            }
            try await client.execute(uri: "/api/v1/wallet/spend", method: .get) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "POST")
                #expect(String(buffer: response.body).contains(#""code":"method_not_allowed""#))
            }
            try await client.execute(uri: "/api/v1/wallet/ada", method: .delete) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "GET")
            }
        }
    }

    @Test func theStrictCheckReadsEscapesAndNestingAsJSONDoes() throws {
        try StrictJSON.check(Data(#"{"a":[1,-2,0,{"b":"\ud83d\ude00\n"}],"c":null,"d":true,"e":false}"#.utf8))
        try StrictJSON.check(Data(#"{"a\"b":1,"a\\b":2}"#.utf8))
        for bad in [
            #"{"a":01}"#, #"{"a":-}"#, #"{"a":"\ud83d"}"#, #"{"a":"\x"}"#, "{\"a\":\"\u{01}\"}", #"[1,]"#, #"{"a":1,}"#,
            String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
        ] {
            #expect(throws: StrictJSON.Problem.self, "\(bad)") { try StrictJSON.check(Data(bad.utf8)) }
        }
    }
}

/// Every JSON route the router registers is described by one of the OpenAPI documents the server serves
/// (`/openapi.yaml`, the key server; `/v1/openapi.yaml`, the OpenCat API and the server's own routes). The web
/// portal's and console's HTML pages and their assets are not JSON routes.
struct RouteCoverageTests {
    /// `METHOD /path/{}` for every operation of a document (parameters' names dropped).
    static func operations(in document: String) -> Set<String> {
        var operations = Set<String>()
        var path: String?
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("components:") {
                path = nil
            } else if let path,
                let method = ["get", "post", "put", "delete", "patch"].first(where: {
                    line.hasPrefix("    \($0):")
                })
            {
                operations.insert("\(method.uppercased()) \(normalized(path))")
            }
        }
        return operations
    }

    static func normalized(_ path: String) -> String {
        path.replacingOccurrences(of: #"\{[^}/]*\}"#, with: "{}", options: .regularExpression)
    }

    @Test func everyJSONRouteIsInAServedOpenAPIDocument() async throws {
        let clock = TestClock(ServerFixture.signedDate)
        try await Backend.sqlite.withStores(now: { clock.now }) { stores in
            let fixture = try ServerFixture(ledger: stores[0], clock: clock)
            let server = OpenCatServerApplication(
                ledger: fixture.ledger,
                settings: fixture.server.settings,
                adapters: Array(fixture.server.adapters.values),
                databaseKind: "test",
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
                metrics: TestMetrics.registry
            )
            let router = server.router()
            let json = router.routes.filter { route in
                !["/portal", "/console", "/assets"].contains { route.path.description.hasPrefix($0) }
                    && !["", "/"].contains(route.path.description)
            }.map { "\($0.method.rawValue) \(Self.normalized($0.path.description))" }
            // Every JSON route (one key-pack purchase route for every store, `keys/purchase/:store`).
            #expect(json.count >= 26)
            try await Application(router: router).test(.router) { client in
                var documented = Set<String>()
                for path in ["/openapi.yaml", "/v1/openapi.yaml"] {
                    let text = try await client.execute(uri: path, method: .get) { response in
                        #expect(response.status == .ok, "\(path)")
                        return String(buffer: response.body)
                    }
                    documented.formUnion(Self.operations(in: text))
                }
                for operation in json {
                    #expect(documented.contains(operation), "\(operation) is in no served OpenAPI document")
                }
            }
        }
    }
}
