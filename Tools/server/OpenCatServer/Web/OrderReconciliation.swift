import Foundation
import ServiceLifecycle

/// The web orders' reconciliation (docs/SECURITY.md, "The order model"), beside the HTTP server on every instance:
/// at start it asks the stores about every unsettled order (payments made while the server was down are credited
/// then), then every `interval` about those whose check is due (``WebOrderSchedule``). After each pass it records
/// how many orders are in each state (`opencat_web_orders{state}`).
struct OrderReconciliation: Service {
    let checkout: WebCheckout
    let interval: Duration

    func run() async throws {
        let checkout = checkout
        let interval = interval
        try? await cancelWhenGracefulShutdown {
            var all = true
            while !Task.isCancelled {
                await checkout.reconcileOrders(all: all)
                all = false
                if let counts = try? await checkout.orders.webOrderCounts() { ServerMetrics.webOrders(counts) }
                try await Task.sleep(for: interval)
            }
        }
    }
}
