import Foundation
import Metrics

/// The server's own series, through swift-metrics (the executable bootstraps a Prometheus registry; `/metrics` shows
/// it). Labels are stores, APIs, reason codes and outcomes — never an id, an email, a token or an amount per customer.
enum ServerMetrics {
    /// A purchase the server accepted: `api` `keys` counts key packs (web orders included) once each, `receipts`
    /// every receipt the OpenCat API accepted.
    static func purchaseAccepted(store: String, api: String) {
        Counter(label: "opencat_purchases_accepted_total", dimensions: [("store", store), ("api", api)]).increment()
    }

    /// A proof a store refused, or could not check (`reason`: the shared StoreAdapters code).
    static func purchaseRefused(store: String, reason: String) {
        Counter(label: "opencat_purchases_refused_total", dimensions: [("store", store), ("reason", reason)])
            .increment()
    }

    /// A store notification verified and applied (`applied: false` for one already applied).
    static func notification(source: String, applied: Bool) {
        Counter(
            label: "opencat_store_notifications_total",
            dimensions: [("source", source), ("outcome", applied ? "applied" : "duplicate")]
        ).increment()
    }

    /// A refund applied: the keys taken back and the debt left with the buyer.
    static func refund(source: String, clawedBack: Int64, debt: Int64) {
        Counter(label: "opencat_refunds_total", dimensions: [("source", source)]).increment()
        Counter(label: "opencat_refund_keys_clawed_back_total", dimensions: [("source", source)])
            .increment(by: max(clawedBack, 0))
        Counter(label: "opencat_refund_keys_owed_total", dimensions: [("source", source)]).increment(by: max(debt, 0))
    }

    /// How many web orders are in each state of the order model (after each reconciliation pass).
    static func webOrders(_ counts: [String: Int]) {
        for (state, orders) in counts {
            Gauge(label: "opencat_web_orders", dimensions: [("state", state)]).record(orders)
        }
    }

    /// A run of a background reconciliation (`outcome`: `ok` or `failed`) and the refunds it found; after a run that
    /// read the store's report, how far behind now its cursor is (`opencat_reconciliation_lag_seconds`: the backlog
    /// the next run starts from).
    static func reconciliation(store: String, ok: Bool, refunds: Int, lagSeconds: Double? = nil) {
        if let lagSeconds {
            Gauge(label: "opencat_reconciliation_lag_seconds", dimensions: [("store", store)]).record(
                max(lagSeconds, 0)
            )
        }
        Counter(
            label: "opencat_reconciliation_runs_total",
            dimensions: [("store", store), ("outcome", ok ? "ok" : "failed")]
        ).increment()
        Gauge(label: "opencat_reconciliation_last_refunds", dimensions: [("store", store)]).record(refunds)
    }
}
