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
/// When ``PurchaseProof/expectedPurchaser`` is set, the order's `steamid` must be present and equal (checked before
/// `FinalizeTxn` too) → `purchaserMismatch`. ``VerifiedPurchase/verifiedAt`` is the `QueryTxn` response's HTTP
/// `Date` (nil without one), never the device clock.
///
/// Steam error codes map as ``SteamErrorCode`` documents; HTTP 401/403 → `unauthorized`, 429 → `rateLimited`,
/// 5xx → `storeUnavailable`, 400 → `invalidProof`.
public struct SteamAdapter: StoreAdapter {
    /// The adapter's settings.
    public let configuration: Configuration
    private let http: StoreHTTP
    private let logger: Logger

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

    /// Always ``Store/steam``.
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
            _ = try Self.product(in: params, expected: proof.productId)
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
        let purchase = try normalize(params, proof: proof, finalized: finalized, storeDate: storeDate)
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

    // MARK: - Normalization

    /// - Parameter storeDate: the QueryTxn response's HTTP `Date`: ``VerifiedPurchase/verifiedAt``.
    private func normalize(
        _ params: QueryTxnParams, proof: PurchaseProof, finalized: Bool, storeDate: Date?
    ) throws -> VerifiedPurchase {
        guard let status = params.status else {
            throw StoreAdapterError(.malformedResponse, store: .steam, "the order has no status")
        }
        let (productId, lines) = try Self.product(in: params, expected: proof.productId)

        let state: VerifiedPurchase.State
        switch status {
        case .succeeded:
            state = .active
        case .approved:
            state = finalized ? .active : .pending
        case .initialized:
            state = .pending
        case .failed:
            throw StoreAdapterError(
                .notPaid,
                store: .steam,
                "the order failed or was denied",
                storeReason: status.rawValue
            )
        case .partialRefund:
            let productRefunded = lines.contains { line in
                line.itemstatus.map { SteamTransactionStatus.reversals.contains($0) } ?? true
            }
            state = productRefunded ? .refunded : .active
        case .refunded, .chargedback, .refundedSuspectedFraud, .refundedFriendlyFraud:
            state = .refunded
        default:
            throw StoreAdapterError(
                .malformedResponse,
                store: .steam,
                "unknown order status",
                storeReason: status.rawValue
            )
        }

        guard let transactionId = params.transid?.text ?? params.orderid?.text, !transactionId.isEmpty else {
            throw StoreAdapterError(.malformedResponse, store: .steam, "the order has neither transid nor orderid")
        }
        var purchaseDate = storeDate ?? http.client.clock.currentDate
        if let time = params.time {
            guard let date = RFC3339Timestamp.date(from: time) else {
                throw StoreAdapterError(
                    .malformedResponse,
                    store: .steam,
                    "the order time is not an RFC 3339 timestamp"
                )
            }
            purchaseDate = date
        }

        let price = Self.total(of: lines, currency: params.currency)
        var refundedAmount: Money?
        if state == .refunded {
            let refundedLines =
                status == .partialRefund
                ? lines.filter { $0.itemstatus.map { SteamTransactionStatus.reversals.contains($0) } ?? true }
                : lines
            refundedAmount = Self.total(of: refundedLines, currency: params.currency)
        }

        return VerifiedPurchase(
            store: .steam,
            transactionId: transactionId,
            productId: productId,
            purchaser: params.steamid?.text,
            purchaseDate: purchaseDate,
            state: state,
            environment: configuration.sandbox ? .sandbox : .production,
            quantity: lines.reduce(0) { $0 + Int($1.qty?.value ?? 1) },
            price: price,
            refundedAmount: refundedAmount,
            finalizedByAdapter: finalized,
            storeStatus: status.rawValue,
            verifiedAt: storeDate
        )
    }

    /// The verified product and its item lines: the expected product if the order has it, else the first item.
    private static func product(in params: QueryTxnParams, expected: String?) throws -> (String, [QueryTxnItem]) {
        let items = params.items ?? []
        let status = params.status?.rawValue
        guard let firstItem = items.first?.itemid?.text else {
            throw StoreAdapterError(.malformedResponse, store: .steam, "the order has no items", storeReason: status)
        }
        let productId = expected ?? firstItem
        let lines = items.filter { $0.itemid?.text == productId }
        guard !lines.isEmpty else {
            throw StoreAdapterError(
                .productMismatch,
                store: .steam,
                "the order is for other items",
                storeReason: status
            )
        }
        return (productId, lines)
    }

    /// The sum of the lines' `amount` (cents) as exact money, or `nil` without a currency or an amount.
    private static func total(of lines: [QueryTxnItem], currency: String?) -> Money? {
        guard let currency, !currency.isEmpty, !lines.isEmpty else { return nil }
        var cents: Int64 = 0
        for line in lines {
            guard let amount = line.amount?.value else { return nil }
            let (sum, overflow) = cents.addingReportingOverflow(amount)
            guard !overflow else { return nil }
            cents = sum
        }
        return Money(minorUnits: cents, currency: currency, exponent: 2)
    }

    // MARK: - ISteamMicroTxn calls

    /// Reads an order, with the response's HTTP `Date` (Steam's time; `nil` when absent or unreadable).
    private func queryTxn(parameter: String, id: String) async throws -> (QueryTxnParams, Date?) {
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

    private func makeRequest(_ httpMethod: HTTPRequest.Method, method: String, query: String?) -> HTTPRequest {
        let base = configuration.baseURL
        let basePath = base.path.hasSuffix("/") ? String(base.path.dropLast()) : base.path
        let authority = base.host.map { host in base.port.map { "\(host):\($0)" } ?? host }
        var path = "\(basePath)/\(configuration.interface)/\(method)"
        if let query { path += "?" + query }
        var request = HTTPRequest(method: httpMethod, scheme: base.scheme, authority: authority, path: path)
        request.headerFields[Self.webAPIKey] = configuration.publisherKey.revealed
        request.headerFields[.accept] = "application/json"
        return request
    }

    private func call<Params: Decodable & Sendable>(
        _ request: HTTPRequest,
        body: Data?,
        method: SteamErrorCode.Method,
        as type: Params.Type
    ) async throws -> (SteamMicroTxnResponse<Params>.Body, Date?) {
        let response = try await http.send(request, body: body, idempotent: true)
        let status = response.status.code
        guard (200..<300).contains(status) else {
            if let common = http.commonError(for: response, reason: nil) { throw common }
            switch status {
            case 400:
                throw StoreAdapterError(
                    .invalidProof,
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
    private static func failure<Params>(
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
