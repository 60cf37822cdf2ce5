import Foundation
import Logging
import OpenCatCore
import ServiceLifecycle
import StoreAdapters

/// What one pass of the Steam refund reconciliation did.
public struct SteamReconciliationOutcome: Sendable, Hashable {
    /// The reversed orders the report listed.
    public var reversedOrders: Int
    /// The refunds applied now (each order's reversal is applied once, whatever the number of passes).
    public var applied: Int
    /// The keys the applied refunds took back.
    public var clawedBack: Int64
    /// Where the next pass starts.
    public var cursor: Date
}

// Steam sends no refund notifications: a reconciliation job reads the MicroTxn report (`GetReport`) from where the
// last pass stopped, reads each reversed order again (QueryTxn: its price and refunded amount) and applies it like a
// store notification, once per order and status.
extension OpenCatServerApplication {
    /// How far back the first pass looks when no pass ran before.
    static let steamReportLookback: TimeInterval = 30 * 86_400

    /// Runs one pass over Steam's report; nil when Steam is not configured.
    public func reconcileSteamRefunds() async throws -> SteamReconciliationOutcome? {
        guard let steam = purchases.adapters[.steam] as? SteamAdapter else { return nil }
        let source = "steam-report"
        let since =
            try await ledger.reconciliationCursor(source) ?? clock().addingTimeInterval(-Self.steamReportLookback)
        var outcome = SteamReconciliationOutcome(reversedOrders: 0, applied: 0, clawedBack: 0, cursor: since)
        var next = since
        // Pages forward while a page comes back full.
        for _ in 0..<50 {
            let report = try await steam.refundReport(since: next)
            outcome.reversedOrders += report.orders.count
            for order in report.orders {
                let transaction = order.transactionId
                let purchase = try await steam.verify(
                    PurchaseProof(
                        store: .steam,
                        kind: transaction == nil ? .steamOrder : .steamTransaction,
                        token: Secret(transaction ?? order.orderId),
                        transactionId: transaction
                    )
                )
                guard purchase.state == .refunded else { continue }
                let event =
                    "\(order.orderId):\(transaction ?? ""):\(order.status):\(purchase.refundedAmount?.amountString ?? "")"
                let applied = try await storeEvents.apply(
                    source,
                    event,
                    purchase.transactionInfo,
                    refundShare: StoreEvents.refundShare(purchase)
                )
                if applied.applied {
                    outcome.applied += 1
                    outcome.clawedBack += applied.refund?.clawedBack ?? 0
                }
            }
            guard report.cursor > next else { break }
            next = report.cursor
            try await ledger.setReconciliationCursor(source, next)
            if report.scannedOrders < 1000 { break }
        }
        outcome.cursor = next
        if outcome.applied > 0 {
            logger.info(
                "steam refunds reconciled",
                metadata: ["applied": "\(outcome.applied)", "clawedBack": "\(outcome.clawedBack)"]
            )
        }
        return outcome
    }
}

/// A job the server runs every `interval` until it stops, the first time at start (`atStart`) or after one
/// interval; the job handles its own failures (it logs them by code and waits for the next pass).
struct PeriodicJob: Service {
    let interval: Duration
    var atStart = false
    let job: @Sendable () async -> Void

    func run() async throws {
        let interval = interval
        let job = job
        let atStart = atStart
        try? await cancelWhenGracefulShutdown {
            if !atStart { try await Task.sleep(for: interval) }
            while !Task.isCancelled {
                await job()
                try await Task.sleep(for: interval)
            }
        }
    }
}

extension OpenCatServerApplication {
    /// The Steam refund reconciliation as a periodic job: a failed pass is logged (by code) and retried at the next
    /// interval.
    func steamReconciliationJob(interval: Duration) -> PeriodicJob {
        let server = self
        return PeriodicJob(interval: interval, atStart: true) {
            do {
                let outcome = try await server.reconcileSteamRefunds()
                ServerMetrics.reconciliation(
                    store: "steam",
                    ok: true,
                    refunds: outcome?.applied ?? 0,
                    lagSeconds: outcome.map { server.clock().timeIntervalSince($0.cursor) }
                )
            } catch {
                let code = (error as? StoreAdapterError)?.code.rawValue ?? String(describing: type(of: error))
                server.logger.warning("steam refund reconciliation failed", metadata: ["error": "\(code)"])
                ServerMetrics.reconciliation(store: "steam", ok: false, refunds: 0)
            }
        }
    }
}

extension OpenCatServerApplication {
    /// The stores this server verifies purchases for whose refunds never reach it: no webhook or push configured
    /// (Stripe, PayPal, Google) or no reconciliation (Steam). Named in a warning at start and in `/ready`.
    public var storesWithoutRefunds: [String] {
        purchases.adapters.keys.filter { store in
            switch store {
            case .apple: false
            case .google: (settings.googlePushToken ?? "").isEmpty
            case .stripe: stripeWebhooks == nil
            case .paypal: payPalWebhooks == nil
            case .steam: settings.steamReconciliationSeconds == nil
            default: true
            }
        }.map(\.rawValue).sorted()
    }
}
