import Foundation
import Hummingbird
import OpenCatCore

// The console's orders needing attention (`/console/orders`): web orders the buyer paid that hold no keys yet —
// being credited, or refused by a rule of the server (named, with its reason) — oldest first, until each is credited
// or refunded. The overview shows their count; `/metrics` has `opencat_web_orders{state}`.
extension ConsoleController {
    func addOrderRoutes(to router: RouterGroup<ServerRequestContext>) {
        router.get("orders") { request, session in try await attentionPage(request, session) }
    }

    func attentionPage(_ request: Request, _ session: ServerRequestContext) async throws -> Response {
        let signedIn = try requireOperator(session)
        var context = consoleContext("Orders needing attention", signedIn)
        let orders = try await ledger.webOrdersNeedingAttention()
        context["hasOrders"] = !orders.isEmpty
        context["orders"] = orders.map { order -> [String: Any] in
            let state = order.orderState
            var rule = ""
            var detail = "paid: the keys are being credited"
            if case .needsAttention(let name, let words) = state {
                rule = name
                detail = words
            }
            return [
                "date": order.createdAt.formatted(.iso8601), "store": order.store, "reference": order.reference,
                "customer": order.userId,
                "customerPath": "/console/customers/" + APIRequest.percentEncoded(order.userId),
                "order": "\(order.productId) × \(order.quantity), \(order.amount) \(order.currency)",
                "state": state.rawValue.replacingOccurrences(of: "_", with: " "), "rule": rule, "detail": detail,
            ]
        }
        return render("console-orders", context)
    }
}
