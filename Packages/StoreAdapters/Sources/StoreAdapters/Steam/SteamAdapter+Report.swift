public import Foundation
import HTTPTypes
import Logging
import OpenCatCore

extension SteamAdapter {
    /// The most orders Steam returns in one report.
    public static let maximumReportResults = 50_000

    /// A `GetReport` report type (Appendix C of the Microtransactions Implementation Guide).
    public struct ReportType: RawRepresentable, Hashable, Sendable, Codable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Only transactions started with `InitTxn`: the game's own purchases (their reversals included).
        public static let gameSales = ReportType(rawValue: "GAMESALES")
        /// Every in-game transaction, reversals and Steam store purchases that grant items included.
        public static let settlement = ReportType(rawValue: "SETTLEMENT")
        /// Only in-game transactions revoked by a refund or a chargeback.
        public static let chargeback = ReportType(rawValue: "CHARGEBACK")
        /// Only Steam store package sales that carry an item id.
        public static let steamStoreSales = ReportType(rawValue: "STEAMSTORESALES")
        /// Only renewed (recurring) transactions.
        public static let subscription = ReportType(rawValue: "SUBSCRIPTION")
    }

    /// Reads one batch of `ISteamMicroTxn/GetReport/v5` (`ISteamMicroTxnSandbox` when ``Configuration/sandbox``)
    /// and returns its reversed orders (refunds, partial refunds, chargebacks, fraud refunds) with the cursor to
    /// read the next batch from.
    ///
    /// Steam pushes nothing when an order is refunded or charged back; a reconciliation job calls this at least
    /// daily, from the previous report's ``SteamRefundReport/cursor``, and revokes what each reversed order
    /// granted (for a `PartialRefund`, only ``SteamRefundReport/Order/refundedItems``). Amounts are Steam's
    /// `amount` (VAT excluded) in exact cents.
    ///
    /// ```swift
    /// var since = lastCursor
    /// while true {
    ///     let report = try await steam.refundReport(since: since)
    ///     for order in report.orders { try await revoke(order) }   // idempotent: batches overlap at the cursor
    ///     guard report.cursor > since else { break }
    ///     since = report.cursor
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - since: the report's start (Steam's `time`, sent as RFC 3339 UTC to the second): orders whose latest
    ///     update is at or after it.
    ///   - maxResults: the most orders in the batch, 1 … ``maximumReportResults`` (Steam's default is 1000; it
    ///     recommends 1000 to 10000).
    ///   - type: the report type (default ``ReportType/gameSales``, the purchases this adapter verifies).
    /// - Returns: the reversed orders and the cursor.
    /// - Throws: ``StoreAdapterError``: `misconfigured` for `maxResults` out of range or parameters Steam refuses,
    ///   `unauthorized` for a key without the Microtransactions permission, `malformedResponse` for an order
    ///   without a readable `time` or status, and the shared transport codes. Cancellation is rethrown as
    ///   `CancellationError`.
    public func refundReport(
        since: Date,
        maxResults: Int = 1000,
        type: ReportType = .gameSales
    ) async throws -> SteamRefundReport {
        guard (1...Self.maximumReportResults).contains(maxResults) else {
            throw StoreAdapterError(
                .misconfigured,
                store: .steam,
                "maxResults must be between 1 and \(Self.maximumReportResults)"
            )
        }
        guard
            !type.rawValue.isEmpty,
            type.rawValue.utf8.allSatisfy({ (0x41...0x5A).contains($0) || $0 == 0x5F })
        else {
            throw StoreAdapterError(.misconfigured, store: .steam, "a report type is upper-case letters")
        }
        // Whole seconds, rounded down: a report from a second earlier misses nothing (Steam's times are seconds).
        let second = Date(timeIntervalSince1970: (since.timeIntervalSince1970).rounded(.down))
        let time = second.formatted(Date.ISO8601FormatStyle())
        let query = "appid=\(configuration.appId)&type=\(type.rawValue)&time=\(time)&maxresults=\(maxResults)"
        let request = makeRequest(.get, method: "GetReport/v5/", query: query)
        let (body, _) = try await call(request, body: nil, method: .getReport, as: GetReportParams.self)
        if let failure = Self.failure(body, method: .getReport) { throw failure }
        guard let params = body.params else {
            throw StoreAdapterError(.malformedResponse, store: .steam, "GetReport answered OK without params")
        }
        let report = try Self.refundReport(params, since: since)
        logger.debug(
            "steam report read",
            metadata: [
                "type": "\(type.rawValue)", "scanned": "\(report.scannedOrders)", "reversed": "\(report.orders.count)",
                "sandbox": "\(configuration.sandbox)",
            ]
        )
        return report
    }

    /// The reversed orders of a `GetReport` batch and its cursor: pure, no HTTP.
    static func refundReport(_ params: GetReportParams, since: Date) throws(StoreAdapterError) -> SteamRefundReport {
        let orders = params.orders ?? []
        var cursor = since
        var reversed: [SteamRefundReport.Order] = []
        for order in orders {
            guard let text = order.time, let time = RFC3339Timestamp.date(from: text) else {
                throw StoreAdapterError(
                    .malformedResponse,
                    store: .steam,
                    "a GetReport order has no RFC 3339 time"
                )
            }
            if time > cursor { cursor = time }
            guard let status = order.status else {
                throw StoreAdapterError(.malformedResponse, store: .steam, "a GetReport order has no status")
            }
            guard SteamTransactionStatus.reversals.contains(status) else { continue }
            let lines = SteamPurchaseMapping.reversedLines(order.items ?? [], status: status)
            let currency = order.currency.flatMap { $0.isEmpty ? nil : $0 }
            let items = lines.map { line in
                SteamRefundReport.Item(
                    itemId: line.itemid?.text ?? "",
                    quantity: line.qty?.value ?? 1,
                    amount: SteamPurchaseMapping.total(of: [line], currency: currency),
                    vat: line.vat.flatMap { vat in
                        currency.map { Money(minorUnits: vat.value, currency: $0, exponent: 2) }
                    },
                    status: line.itemstatus?.rawValue
                )
            }
            guard let orderId = order.orderid?.text ?? order.transid?.text else {
                throw StoreAdapterError(
                    .malformedResponse,
                    store: .steam,
                    "a reversed GetReport order has neither orderid nor transid"
                )
            }
            reversed.append(
                SteamRefundReport.Order(
                    orderId: orderId,
                    transactionId: order.transid?.text,
                    steamId: order.steamid?.text,
                    status: status.rawValue,
                    time: time,
                    currency: currency,
                    agreementId: order.agreementid?.text,
                    refundedItems: items,
                    refundedAmount: lines.isEmpty ? nil : SteamPurchaseMapping.total(of: lines, currency: currency)
                )
            )
        }
        return SteamRefundReport(since: since, cursor: cursor, scannedOrders: orders.count, orders: reversed)
    }
}
