import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OpenCatAsyncHTTPClient
import OpenCatCore
import Synchronization

@testable import OpenCatServer

/// An integrator's receiver on loopback for the webhook tests: records every request (its three Standard Webhooks
/// headers and body) and answers by path — `/ok` 200, `/gone` 410, `/redirect` 302 to `/elsewhere`, `/hang` never
/// (until the test ends), `/flaky` and `/down` 503 while ``down`` is set, 200 after.
final class WebhookReceiver: Sendable {
    struct Received: Sendable, Hashable {
        var path: String
        var id: String
        var timestamp: String
        var signature: String
        var body: String
        var status: Int
    }

    let received = Mutex<[Received]>([])
    let down = Mutex(true)
    /// `/held`: requests wait here (their ids noted) until the gate opens.
    let gate = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>], ids: [String])>((false, [], []))

    /// How many requests wait at the gate, and their webhook-ids.
    var held: [String] { gate.withLock { $0.ids } }

    /// Lets every waiting request through, and every later one at once.
    func openGate() {
        let waiting = gate.withLock { state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func waitAtGate(_ id: String) async {
        await withCheckedContinuation { continuation in
            let pass = gate.withLock { state in
                if state.open { return true }
                state.waiting.append(continuation)
                state.ids.append(id)
                return false
            }
            if pass { continuation.resume() }
        }
    }

    /// The receiver is back: `/flaky` and `/down` answer 204 from now on.
    func recover() { down.withLock { $0 = false } }

    /// The requests one path received.
    func requests(_ path: String) -> [Received] { received.withLock { $0.filter { $0.path == path } } }

    /// The requests a path answered with a 2xx.
    func delivered(_ path: String) -> [Received] { requests(path).filter { (200..<300).contains($0.status) } }

    func answer(_ path: String) -> HTTPResponse.Status {
        switch path {
        case "/ok", "/elsewhere", "/held": .ok
        case "/gone": .gone
        case "/redirect": .found
        default: down.withLock { $0 } ? .serviceUnavailable : .noContent
        }
    }

    /// Runs `body` with the receiver listening on 127.0.0.1 (its base URL).
    func run<T: Sendable>(_ body: @Sendable (URL) async throws -> T) async throws -> T {
        let router = Router()
        let (hang, ended) = AsyncStream.makeStream(of: Void.self)
        router.post("**") { request, context -> Response in
            let path = request.uri.path
            if path == "/hang" {
                for await _ in hang {}
                return Response(status: .ok)
            }
            let bytes = try await request.body.collect(upTo: 1 << 20)
            if path == "/held" { await self.waitAtGate(request.headers[StandardWebhooks.idHeader] ?? "") }
            let status = self.answer(path)
            let fields = request.headers
            self.received.withLock {
                $0.append(
                    Received(
                        path: path,
                        id: fields[StandardWebhooks.idHeader] ?? "",
                        timestamp: fields[StandardWebhooks.timestampHeader] ?? "",
                        signature: fields[StandardWebhooks.signatureHeader] ?? "",
                        body: String(buffer: bytes),
                        status: Int(status.code)
                    )
                )
            }
            var headers = HTTPFields()
            if status == .found { headers[.location] = "/elsewhere" }
            return Response(status: status, headers: headers)
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let running = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
            logger: Logger(label: "tests.receiver", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await running.runService() }
            defer {
                ended.finish()
                openGate()
                group.cancelAll()
            }
            var port = 0
            for await listening in ports {
                port = listening
                break
            }
            return try await body(URL(string: "http://127.0.0.1:\(port)")!)
        }
    }
}

extension WebhookReceiver.Received {
    /// Verifies the delivery with the kernel's Standard Webhooks verifier under `secrets`, as of `now`.
    func verify(_ secrets: [StandardWebhookSecret], now: Date = Date()) throws {
        var headers = HTTPFields()
        headers[StandardWebhooks.idHeader] = id
        headers[StandardWebhooks.timestampHeader] = timestamp
        headers[StandardWebhooks.signatureHeader] = signature
        _ = try StandardWebhooks.verify(payload: Data(body.utf8), headers: headers, secrets: secrets, now: now)
    }
}

/// What most delivery tests start from: a fresh database on a movable clock, a receiver, a transport.
struct DeliveryWorld {
    let store: any LedgerStore
    let receiver: WebhookReceiver
    let base: URL
    let transport: AsyncHTTPClientTransport
    let clock: TestClock

    /// The receiver's URL for a path (`ok`, `down`, …).
    func url(_ path: String) -> String { base.appendingPathComponent(path).absoluteString }

    /// A dispatcher on this world's clock.
    func dispatcher(allowPrivate: Bool = true) -> WebhookDispatcher {
        testDispatcher(store, transport: transport, allowPrivate: allowPrivate, now: { clock.now })
    }

    static func run(_ backend: Backend, _ body: @Sendable (DeliveryWorld) async throws -> Void) async throws {
        let receiver = WebhookReceiver()
        let transport = AsyncHTTPClientTransport()
        defer { Task { try? await transport.shutdown() } }
        let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
        try await backend.withStores(now: { clock.now }) { stores in
            let store = stores[0]
            try await receiver.run { base in
                try await body(
                    DeliveryWorld(store: store, receiver: receiver, base: base, transport: transport, clock: clock)
                )
            }
        }
    }
}

/// Builds a dispatcher over a store for the tests: loopback allowed unless `allowPrivate` is false, the attempts'
/// timeouts on the real clock (a receiver that hangs is cut off after `timeoutSeconds`), jitter fixed.
func testDispatcher(
    _ store: any LedgerStore,
    transport: AsyncHTTPClientTransport,
    allowPrivate: Bool = true,
    timeoutSeconds: Int = 15,
    now: @escaping @Sendable () -> Date
) -> WebhookDispatcher {
    var settings = WebhookSettings()
    settings.allowPrivateNetworks = allowPrivate
    settings.timeoutSeconds = timeoutSeconds
    return WebhookDispatcher(
        store: store,
        client: HTTPClient(transport: transport, retryPolicy: .never, timeout: .seconds(timeoutSeconds)),
        policy: WebhookAddressPolicy(allowPrivateNetworks: allowPrivate),
        settings: settings,
        clock: now,
        logger: Logger(label: "tests.webhooks", factory: { _ in SwiftLogNoOpLogHandler() }),
        jitter: { 1 }
    )
}

/// Registers an endpoint for `types` (nil: all) and returns its secret.
@discardableResult
func registerEndpoint(
    _ store: any LedgerStore,
    id: String,
    url: String,
    types: [WebhookEventType]? = nil
) async throws -> StandardWebhookSecret {
    let secret = StandardWebhookSecret()
    try await store.registerWebhookEndpoint(
        WebhookEndpoint(id: id, app: "app", url: url, eventTypes: types, origin: "console", createdAt: store.now),
        secret: secret.serialized.revealed,
        by: "ops"
    )
    return secret
}

/// A subscription transaction for the tests.
func subscription(
    _ id: String,
    original: String = "sub-1",
    product: String = "pro.monthly",
    expires: Date,
    status: TransactionInfo.Status = .active,
    willRenew: Bool = true
) -> TransactionInfo {
    TransactionInfo(
        transactionId: id,
        originalTransactionId: original,
        productId: product,
        store: .apple,
        purchaseDate: expires.addingTimeInterval(-30 * 86_400),
        expirationDate: expires,
        status: status,
        willRenew: willRenew,
        environment: .sandbox
    )
}

/// What ``causeEveryEventType(_:now:testEndpoint:)`` writes: each type once per cause (two refunds: a subscription's
/// and a key pack's partial one).
let everyEventTypeOnce = [
    "initial_purchase": 1, "renewal": 1, "cancellation": 1, "uncancellation": 1, "billing_issue": 1, "grace_period": 1,
    "product_change": 1, "expiration": 1, "refund": 2, "key_pack_purchased": 1, "keys_shared": 1,
    "promotional_grant": 1, "test": 1,
]

/// One cause of every event type, through the ledger as the server's paths write it: a subscription bought, renewed,
/// cancelled and uncancelled, in billing retry, in grace, moved to another product, expired, its first period
/// refunded (each store event applied twice, as a store's retry: the second writes nothing); a key pack bought, shared
/// from and refunded in part; a promotional grant; a test event for `testEndpoint`.
func causeEveryEventType(_ store: any LedgerStore, now: Date, testEndpoint: String) async throws {
    let day: TimeInterval = 86_400
    let expiry = now.addingTimeInterval(30 * day)
    let price = Money(decimalString: "4.99", currency: "USD")!
    try await store.record(subscription("t1", expires: expiry), appUserId: "ana", storeTime: nil, price: price)
    try await store.record(subscription("t2", expires: expiry + 30 * day), appUserId: "ana")
    let changes: [(String, TransactionInfo)] = [
        ("e1", subscription("t2", expires: expiry + 30 * day, willRenew: false)),
        ("e2", subscription("t2", expires: expiry + 30 * day)),
        ("e3", subscription("t2", expires: expiry + 30 * day, status: .billingRetry)),
        ("e4", subscription("t2", expires: expiry + 30 * day, status: .gracePeriod)),
        ("e5", subscription("t2", product: "pro.yearly", expires: expiry + 30 * day, status: .gracePeriod)),
        ("e6", subscription("t2", product: "pro.yearly", expires: expiry + 30 * day, status: .expired)),
        ("e7", subscription("t1", expires: expiry, status: .refunded)),
    ]
    for (id, info) in changes {
        _ = try await store.applyStoreEvent(source: "apple", eventId: id, update: info)
        _ = try await store.applyStoreEvent(source: "apple", eventId: id, update: info)
    }
    let facts = KeyGrant.Facts(productId: "keys_10", environment: "sandbox", price: price, purchaseDate: now)
    _ = try await store.redeem(
        store: "stripe",
        transactionId: "pi_1",
        userId: "ana",
        grant: KeyGrant(keys: 10, bonusKeys: 1, purchase: facts)
    )
    try await store.recordSale(
        store: "stripe",
        transactionId: "pi_1",
        userId: "ana",
        productId: "keys_10",
        price: price,
        quantity: 1,
        at: now
    )
    _ = try await store.transfer(
        from: "ana",
        to: "ben",
        amount: 2,
        kind: "share",
        receivedKind: "received",
        idempotencyKey: "s1"
    )
    _ = try await store.refund(
        store: "stripe",
        transactionId: "pi_1",
        share: RefundShare(refunded: Decimal(string: "2.50")!, paid: Decimal(string: "4.99")!)
    )
    try await store.grantPromotionalEntitlement(
        PromotionalEntitlement(
            id: "promo_1",
            appUserId: "ana",
            entitlement: "pro",
            startsAt: now,
            expiresAt: now.addingTimeInterval(7 * day),
            grantedBy: "ops",
            reason: "support"
        )
    )
    _ = try await store.sendTestWebhookEvent(endpoint: testEndpoint, by: "ops")
}
