import Foundation
import HTTPTypes
public import Logging
public import OpenCatCore

/// Verifies Steam microtransactions with `ISteamMicroTxn` (or `ISteamMicroTxnSandbox`).
///
/// The proof is a `.steamOrder` (the partner's 64-bit order id) or a `.steamTransaction` (Steam's 64-bit
/// transaction id). `QueryTxn/v3` is asked with the publisher key in the `x-webapi-key` header, and the order's
/// status becomes the normalized state:
///
/// | Steam status | state |
/// |---|---|
/// | `Succeeded` | `active` |
/// | `Approved` | `FinalizeTxn/v2`, then `active` with ``VerifiedPurchase/finalizedByAdapter`` (`pending` when ``Configuration/finalizeApproved`` is off) |
/// | `Init` | `pending` |
/// | `Failed` | throws `notPaid` |
/// | `Refunded`, `Chargedback`, `RefundedSuspectedFraud`, `RefundedFriendlyFraud` | `refunded` |
/// | `PartialRefund` | `refunded` when the verified product's items are refunded, else `active` |
///
/// The product is the first item's `itemid`, or the proof's `productId` when it names one of the order's items
/// (`productMismatch` when it names none). Price and refunded amount are the matching items' `amount` (integer
/// cents, VAT excluded, as Steam reports it) in the order's `currency`. A `FinalizeTxn` that answers error 6
/// ("already committed", a concurrent finalization) is followed by a fresh `QueryTxn`.
///
/// When `PurchaseProof/expectedPurchaser` is set, the order's `steamid` must be present and equal (checked before
/// `FinalizeTxn` too) → `purchaserMismatch`. ``VerifiedPurchase/verifiedAt`` is the `QueryTxn` response's HTTP
/// `Date` (nil without one), never the device clock.
///
/// Steam error codes map as `SteamErrorCode` documents; HTTP 401/403 → `unauthorized`, 429 → `rateLimited`,
/// 5xx → `storeUnavailable`, 400 → `invalidProof`.
///
/// Beyond verification: ``authenticateUserTicket(_:identity:)`` proves who the player is (the `steamid` to bind
/// purchases to), and ``refundReport(since:maxResults:type:)`` reads the refunds and chargebacks to claw back, since
/// Steam pushes no notifications.
public struct SteamAdapter: StoreAdapter {
    /// The adapter's settings.
    public let configuration: Configuration
    let http: StoreHTTP
    let logger: Logger

    private static let webAPIKey = HTTPField.Name("x-webapi-key")!

    /// Creates an adapter.
    /// - Parameters:
    ///   - configuration: app id, publisher key, interface, base URL and HTTP client.
    ///   - logger: receives one line per verification (never the key or an id from the proof); a no-op logger by
    ///     default.
    public init(
        configuration: Configuration,
        logger: Logger = Logger(label: "dev.opencat.steam", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.configuration = configuration
        self.http = StoreHTTP(client: configuration.httpClient, store: .steam)
        self.logger = logger
    }

    /// Always `Store/steam`.
    public var store: Store { .steam }

    /// Verifies a Steam order or transaction.
    /// - Parameter proof: a `.steamOrder` or `.steamTransaction` proof whose token is the decimal 64-bit id; an
    ///   `appid` in its context must match the configured one.
    /// - Returns: the normalized purchase.
    /// - Throws: ``StoreAdapterError``.
    public func verify(_ proof: PurchaseProof) async throws -> VerifiedPurchase {
        guard proof.store == .steam else {
            throw StoreAdapterError(.invalidProof, store: .steam, "the proof is for another store (\(proof.store))")
        }
        if proof.kind == .steamAgreement { return try await verifyAgreement(proof) }
        let parameter: String
        switch proof.kind {
        case .steamOrder: parameter = "orderid"
        case .steamTransaction: parameter = "transid"
        default:
            throw StoreAdapterError(.invalidProof, store: .steam, "a Steam adapter cannot verify a \(proof.kind) proof")
        }
        let id = proof.token.revealed
        guard !id.isEmpty, id.utf8.allSatisfy({ (0x30...0x39).contains($0) }), UInt64(id) != nil else {
            throw StoreAdapterError(
                .invalidProof,
                store: .steam,
                "the Steam \(parameter) is not a 64-bit unsigned integer"
            )
        }
        if let appId = proof.context["appid"], appId != String(configuration.appId) {
            throw StoreAdapterError(
                .wrongApplication,
                store: .steam,
                "the proof names another app id than the configured one"
            )
        }

        var (params, storeDate) = try await queryTxn(parameter: parameter, id: id)
        var finalized = false
        if params.status == .approved, configuration.finalizeApproved {
            // Never capture funds for an order that is not for the expected product or purchaser.
            _ = try SteamPurchaseMapping.product(in: params, expected: proof.productId)
            try PurchaserBinding.check(proof, reported: params.steamid?.text, field: "steamid")
            guard let orderId = params.orderid?.text, !orderId.isEmpty else {
                throw StoreAdapterError(.malformedResponse, store: .steam, "the approved order has no orderid")
            }
            if try await finalizeTxn(orderId: orderId) {
                finalized = true
                logger.debug("steam order finalized", metadata: ["sandbox": "\(configuration.sandbox)"])
            } else {
                // Already committed by a concurrent finalization: read the order as it is now.
                (params, storeDate) = try await queryTxn(parameter: parameter, id: id)
            }
        }
        let purchase = try SteamPurchaseMapping.purchase(
            params,
            proof: proof,
            finalized: finalized,
            sandbox: configuration.sandbox,
            now: http.client.clock.currentDate,
            verifiedAt: storeDate
        )
        try PurchaserBinding.check(proof, reported: purchase.purchaser, field: "steamid")
        logger.debug(
            "steam purchase verified",
            metadata: [
                "kind": "\(proof.kind)", "status": "\(params.status?.rawValue ?? "-")", "state": "\(purchase.state)",
                "sandbox": "\(configuration.sandbox)", "finalized": "\(finalized)",
            ]
        )
        return purchase
    }

    // MARK: - ISteamMicroTxn calls

    /// Reads an order, with the response's HTTP `Date` (Steam's time; `nil` when absent or unreadable).
    func queryTxn(parameter: String, id: String) async throws -> (QueryTxnParams, Date?) {
        let query = "appid=\(configuration.appId)&\(parameter)=\(id)"
        let request = makeRequest(.get, method: "QueryTxn/v3/", query: query)
        let (body, date) = try await call(request, body: nil, method: .queryTxn, as: QueryTxnParams.self)
        if let failure = Self.failure(body, method: .queryTxn) { throw failure }
        guard let params = body.params else {
            throw StoreAdapterError(.malformedResponse, store: .steam, "QueryTxn answered OK without params")
        }
        return (params, date)
    }

    /// Finalizes an approved order.
    /// - Returns: `true` when this call finalized it, `false` when Steam says it was already committed.
    private func finalizeTxn(orderId: String) async throws -> Bool {
        var request = makeRequest(.post, method: "FinalizeTxn/v2/", query: nil)
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let form = "appid=\(configuration.appId)&orderid=\(orderId)"
        // A repeated FinalizeTxn answers "already committed" (6), which is handled, so retries are safe.
        let (body, _) = try await call(request, body: Data(form.utf8), method: .finalizeTxn, as: FinalizeTxnParams.self)
        if body.error?.errorcode?.value == SteamErrorCode.alreadyCommitted { return false }
        if let failure = Self.failure(body, method: .finalizeTxn) { throw failure }
        return true
    }

    /// A request to `baseURL/<interface>/<method>[?query]` with the publisher key in the `x-webapi-key` header.
    /// - Parameter interface: the Web API interface (default: ``Configuration/interface``, `ISteamMicroTxn` or
    ///   `ISteamMicroTxnSandbox`).
    func makeRequest(
        _ httpMethod: HTTPRequest.Method,
        method: String,
        query: String?,
        interface: String? = nil
    ) -> HTTPRequest {
        let base = configuration.baseURL
        let basePath = base.path.hasSuffix("/") ? String(base.path.dropLast()) : base.path
        let authority = base.host.map { host in base.port.map { "\(host):\($0)" } ?? host }
        var path = "\(basePath)/\(interface ?? configuration.interface)/\(method)"
        if let query { path += "?" + query }
        var request = HTTPRequest(method: httpMethod, scheme: base.scheme, authority: authority, path: path)
        request.headerFields[Self.webAPIKey] = configuration.publisherKey.revealed
        request.headerFields[.accept] = "application/json"
        return request
    }

    func call<Params: Decodable & Sendable>(
        _ request: HTTPRequest,
        body: Data?,
        method: SteamErrorCode.Method,
        as type: Params.Type,
        idempotent: Bool = true
    ) async throws -> (SteamMicroTxnResponse<Params>.Body, Date?) {
        let response = try await http.send(request, body: body, idempotent: idempotent)
        let status = response.status.code
        guard (200..<300).contains(status) else {
            if let common = http.commonError(for: response, reason: nil) { throw common }
            switch status {
            case 400:
                // A report request carries no proof: a refused parameter is the app id or the time.
                throw StoreAdapterError(
                    method == .getReport ? .misconfigured : .invalidProof,
                    store: .steam,
                    "Steam rejected the \(method.rawValue) parameters",
                    httpStatus: status
                )
            case 404, 405:
                throw StoreAdapterError(
                    .malformedResponse,
                    store: .steam,
                    "the Steam Web API has no such method (check the base URL)",
                    httpStatus: status
                )
            default:
                throw StoreAdapterError(
                    .malformedResponse,
                    store: .steam,
                    "unexpected HTTP status from Steam",
                    httpStatus: status
                )
            }
        }
        let decoded = try http.decode(SteamMicroTxnResponse<Params>.self, from: response.body).response
        return (decoded, HTTPDate.of(response.head.headerFields))
    }

    /// The error a `Failure` answer stands for, or `nil` for `OK`.
    static func failure<Params>(
        _ body: SteamMicroTxnResponse<Params>.Body,
        method: SteamErrorCode.Method
    ) -> StoreAdapterError? {
        let ok = body.result?.caseInsensitiveCompare("OK") == .orderedSame
        if ok, body.error == nil { return nil }
        guard let code = body.error?.errorcode?.value else {
            return StoreAdapterError(
                .malformedResponse,
                store: .steam,
                "\(method.rawValue) failed without an error code",
                storeReason: body.result
            )
        }
        let mapped = SteamErrorCode.map(code, method: method)
        return StoreAdapterError(mapped.code, store: .steam, mapped.message, storeReason: "errorcode \(code)")
    }
}
