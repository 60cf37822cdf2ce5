import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Synchronization

/// An in-process implementation of the OpenCat server API (docs/api/opencat-server.md) behind HTTPTransport:
/// it accepts proofs whose token it knows, keeps subscribers, and can be taken offline or made to fail.
final class FakeOpenCatServer: HTTPTransport {
    enum Availability: Sendable {
        case online, offline, failing(Int)
        /// 200 with a body that is not JSON.
        case garbled
    }

    private struct State {
        var availability = Availability.online
        var knownProofs: [String: TransactionInfo] = [:]
        var transactions: [String: [TransactionInfo]] = [:]
        var entitlementMap: [String: [String]] = [:]
        var receiptPosts: [String] = []
        var requests: [String] = []
        var offerings = Offerings(currentOfferingId: nil, all: [:])
        var now: Date
        /// When set, every subscriber answer names this user instead (a proxy's or server's mix-up).
        var answerAs: String?
    }

    let apiKey: String
    private let state: Mutex<State>

    init(apiKey: String, now: Date = Fixture.epoch) {
        self.apiKey = apiKey
        self.state = Mutex(State(now: now))
    }

    func setAvailability(_ availability: Availability) { state.withLock { $0.availability = availability } }
    func know(token: String, as transaction: TransactionInfo) { state.withLock { $0.knownProofs[token] = transaction } }
    func setEntitlementMap(_ map: [String: [String]]) { state.withLock { $0.entitlementMap = map } }
    func setOfferings(_ offerings: Offerings) { state.withLock { $0.offerings = offerings } }
    func setNow(_ date: Date) { state.withLock { $0.now = date } }
    func answer(as user: String?) { state.withLock { $0.answerAs = user } }
    /// Idempotency keys of accepted receipt posts, one per accepted post.
    var receiptPosts: [String] { state.withLock { $0.receiptPosts } }
    var requestLog: [String] { state.withLock { $0.requests } }
    /// The transaction ids the server holds for a user.
    func transactionIds(of user: String) -> [String] {
        state.withLock { ($0.transactions[user] ?? []).map(\.transactionId) }
    }

    func send(_ request: HTTPRequest, body: Data?) async throws -> HTTPTransportResponse {
        try state.withLock { state in
            state.requests.append("\(request.method) \(request.path ?? "")")
            switch state.availability {
            case .offline: throw HTTPTransportError(.connectionFailed, "offline")
            case .failing(let status):
                return Self.json(status, #"{"error":{"code":"unavailable","message":"try later"}}"#)
            case .garbled: return Self.json(200, "<html>proxy error</html>")
            case .online: break
            }
            guard request.headerFields[.authorization] == "Bearer \(apiKey)" else {
                return Self.json(401, #"{"error":{"code":"unauthorized","message":"bad api key"}}"#)
            }
            let path = request.path ?? ""
            if request.method == .get, path.hasPrefix("/v1/subscribers/") {
                let user = String(path.dropFirst("/v1/subscribers/".count)).removingPercentEncoding ?? ""
                return Self.subscriber(user, state)
            }
            if request.method == .get, path.hasPrefix("/v1/offerings") {
                let body = try JSONSerialization.jsonObject(with: Self.encoder.encode(state.offerings))
                let payload: [String: Any] = ["requestDate": Self.format(state.now), "offerings": body]
                return HTTPTransportResponse(
                    head: HTTPResponse(status: .ok),
                    body: try JSONSerialization.data(withJSONObject: payload)
                )
            }
            if request.method == .post, path == "/v1/receipts" {
                let post = try JSONSerialization.jsonObject(with: body ?? Data()) as? [String: Any] ?? [:]
                guard let user = post["appUserId"] as? String, let proof = post["proof"] as? String,
                    let transaction = state.knownProofs[proof]
                else {
                    return Self.json(
                        422,
                        #"{"error":{"code":"invalid_receipt","message":"the store rejected the proof"}}"#
                    )
                }
                let key = request.headerFields[HTTPField.Name("Idempotency-Key")!] ?? "none"
                if !state.receiptPosts.contains(key) {
                    state.receiptPosts.append(key)
                    state.transactions[user, default: []].removeAll { $0.transactionId == transaction.transactionId }
                    state.transactions[user, default: []].append(transaction)
                }
                return Self.subscriber(user, state)
            }
            return Self.json(404, #"{"error":{"code":"not_found","message":"no route"}}"#)
        }
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(format(date))
        }
        return encoder
    }

    private static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    private static func subscriber(_ user: String, _ state: State) -> HTTPTransportResponse {
        struct Subscriber: Encodable {
            var appUserId: String
            var firstSeenAt: Date
            var transactions: [TransactionInfo]
            var entitlementMap: [String: [String]]
        }
        struct Response: Encodable {
            var requestDate: Date
            var subscriber: Subscriber
        }
        let response = Response(
            requestDate: state.now,
            subscriber: Subscriber(
                appUserId: state.answerAs ?? user,
                firstSeenAt: Fixture.epoch,
                transactions: state.transactions[user] ?? [],
                entitlementMap: state.entitlementMap
            )
        )
        return HTTPTransportResponse(head: HTTPResponse(status: .ok), body: (try? encoder.encode(response)) ?? Data())
    }

    private static func json(_ status: Int, _ body: String) -> HTTPTransportResponse {
        HTTPTransportResponse(head: HTTPResponse(status: .init(code: status)), body: Data(body.utf8))
    }
}
