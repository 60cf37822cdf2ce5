public import Foundation
import HTTPTypes
public import Hummingbird
import Logging
import NIOCore

/// Who a bearer token is: the reference server's tokens map to user ids (configured from a file; no token is ever
/// logged or echoed).
public struct BearerTokens: Sendable {
    let users: [String: String]

    /// Tokens from `{"<token>": "<user id>", …}`.
    public init(_ users: [String: String]) { self.users = users }

    /// Reads a JSON token file.
    public init(file: URL) throws {
        users = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: file))
    }

    /// The user a request's `Authorization: Bearer` names, compared in constant time per candidate.
    func user(for request: Request) -> String? {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            return nil
        }
        let presented = Array(header.dropFirst(7).utf8)
        var found: String?
        for (token, user) in users {
            let expected = Array(token.utf8)
            guard expected.count == presented.count else { continue }
            var difference: UInt8 = 0
            for index in expected.indices { difference |= expected[index] ^ presented[index] }
            if difference == 0 { found = user }
        }
        return found
    }
}

/// The reference server's HTTP API on Hummingbird: `GET /health` and the key server's wallet endpoints
/// (docs/api/keyserver.openapi.yaml) over a ``LedgerStore``. A user reads and spends only their own keys.
public struct OpenCatServerApplication: Sendable {
    public let ledger: any LedgerStore
    public let tokens: BearerTokens
    public let databaseKind: String
    public let logger: Logger

    public init(ledger: any LedgerStore, tokens: BearerTokens, databaseKind: String, logger: Logger) {
        self.ledger = ledger
        self.tokens = tokens
        self.databaseKind = databaseKind
        self.logger = logger
    }

    static let maximumBodyBytes = 64 * 1024

    struct SpendBody: Decodable {
        var amount: Int64
        var feature: String
        var app: String
        var userId: String
    }

    /// The routes.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/health") { _, _ in Self.json(.ok, ["status": "ok", "database": databaseKind]) }
        router.get("/api/v1/wallet/:userId") { request, context in
            guard let userId = context.parameters.get("userId") else {
                return Self.error(.badRequest, "invalid_input", "no user")
            }
            if let refusal = authorize(request, userId) { return refusal }
            do throws(LedgerError) {
                let balance = try await ledger.balance(of: userId)
                return Self.json(
                    .ok,
                    [
                        "userId": userId, "balance": balance, "unlockedFeatures": [String: [String]](),
                        "updatedAt": ISO8601DateFormatter().string(from: Date()),
                    ] as [String: any Sendable]
                )
            } catch {
                return Self.error(error)
            }
        }
        router.get("/api/v1/wallet/history/:userId") { request, context in
            guard let userId = context.parameters.get("userId") else {
                return Self.error(.badRequest, "invalid_input", "no user")
            }
            if let refusal = authorize(request, userId) { return refusal }
            do throws(LedgerError) {
                let formatter = ISO8601DateFormatter()
                let entries = try await ledger.entries(of: userId, limit: 200).map { entry -> [String: any Sendable] in
                    var item: [String: any Sendable] = [
                        "kind": entry.kind, "id": entry.id, "amount": entry.amount,
                        "date": formatter.string(from: entry.createdAt),
                    ]
                    if let reference = entry.reference { item["feature"] = reference }
                    if let app = entry.app { item["app"] = app }
                    return item
                }
                return Self.json(.ok, ["transactions": entries])
            } catch {
                return Self.error(error)
            }
        }
        router.post("/api/v1/wallet/spend") { request, _ in
            var request = request
            guard let key = request.headers[HTTPField.Name("Idempotency-Key")!], !key.isEmpty, key.utf8.count <= 200
            else {
                return Self.error(.badRequest, "invalid_input", "an Idempotency-Key header is required")
            }
            let body: SpendBody
            do {
                let buffer = try await request.collectBody(upTo: Self.maximumBodyBytes)
                body = try JSONDecoder().decode(SpendBody.self, from: Data(buffer.readableBytesView))
            } catch {
                return Self.error(.badRequest, "invalid_input", "the body is not a spend")
            }
            if let refusal = authorize(request, body.userId) { return refusal }
            do throws(LedgerError) {
                let outcome = try await ledger.spend(
                    userId: body.userId,
                    amount: body.amount,
                    kind: "spend",
                    reference: body.feature,
                    app: body.app,
                    idempotencyKey: key
                )
                return Self.json(
                    .ok,
                    ["remainingBalance": outcome.balance, "featureUnlocked": true, "transactionId": outcome.entry.id]
                )
            } catch {
                return Self.error(error)
            }
        }
        return router
    }

    /// 401 without a known token, 403 when the token's user is not the one asked about.
    func authorize(_ request: Request, _ userId: String) -> Response? {
        guard let user = tokens.user(for: request) else {
            return Self.error(.unauthorized, "unauthorized", "The token is missing, invalid or expired.")
        }
        guard user == userId else { return Self.error(.forbidden, "forbidden", "a user can only use their own wallet") }
        return nil
    }

    /// An application on an address.
    public func application(
        host: String = "127.0.0.1",
        port: Int,
        onServerRunning: @escaping @Sendable (Int) -> Void = { _ in }
    )
        -> some ApplicationProtocol
    {
        Application(
            router: router(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }

    static func error(_ error: LedgerError) -> Response {
        switch error.code {
        case .insufficientBalance: Self.error(HTTPResponse.Status(code: 402), error.code.rawValue, error.message)
        case .alreadyRedeemed, .idempotencyConflict: Self.error(.conflict, error.code.rawValue, error.message)
        case .invalidInput: Self.error(.unprocessableContent, error.code.rawValue, error.message)
        default: Self.error(.internalServerError, error.code.rawValue, "the server could not complete the request")
        }
    }

    static func error(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> Response {
        json(status, ["error": ["code": code, "message": message]])
    }

    static func json(_ status: HTTPResponse.Status, _ object: [String: any Sendable]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
