import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import OpenCatServer
import Testing

/// The server's HTTP surface: health, bearer tokens, a user's own wallet only, 402 on overdraw.
struct ServerHTTPTests {
    @Test func healthWalletSpendAndAuthorization() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-server-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let ledger = try SQLiteLedgerStore(fileURL: folder.appendingPathComponent("ledger.sqlite"))
        _ = try await ledger.redeem(store: "apple", transactionId: "t1", userId: "ada", amount: 5)
        let server = OpenCatServerApplication(
            ledger: ledger,
            tokens: BearerTokens(["tok-ada-0123": "ada", "tok-bob-4567": "bob"]),
            databaseKind: "sqlite",
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let app = Application(router: server.router())
        try await app.test(.router) { client in
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"status\":\"ok\""))
            }
            try await client.execute(uri: "/api/v1/wallet/ada", method: .get) { response in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(
                uri: "/api/v1/wallet/ada",
                method: .get,
                headers: [.authorization: "Bearer tok-bob-4567"]
            ) { response in
                #expect(response.status == .forbidden)
            }
            try await client.execute(
                uri: "/api/v1/wallet/ada",
                method: .get,
                headers: [.authorization: "Bearer tok-ada-0123"]
            ) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"balance\":5"))
            }
            let spend = ByteBuffer(string: #"{"amount":4,"feature":"echo","app":"voiceuwu","userId":"ada"}"#)
            var headers: HTTPFields = [.authorization: "Bearer tok-ada-0123", .contentType: "application/json"]
            headers[HTTPField.Name("Idempotency-Key")!] = "spend-1"
            try await client.execute(uri: "/api/v1/wallet/spend", method: .post, headers: headers, body: spend) {
                response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"remainingBalance\":1"))
            }
            headers[HTTPField.Name("Idempotency-Key")!] = "spend-2"
            try await client.execute(uri: "/api/v1/wallet/spend", method: .post, headers: headers, body: spend) {
                response in
                #expect(response.status.code == 402)
                #expect(String(buffer: response.body).contains("insufficient_balance"))
            }
            try await client.execute(
                uri: "/api/v1/wallet/history/ada",
                method: .get,
                headers: [.authorization: "Bearer tok-ada-0123"]
            ) { response in
                #expect(String(buffer: response.body).contains("\"kind\":\"spend\""))
            }
        }
    }
}
