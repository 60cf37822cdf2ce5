import Foundation
import Hummingbird
import OpenCatCore

// The console's webhooks pages (`/console/webhooks`): the endpoints per app, one endpoint's deliveries (state,
// attempts, next try, last answer), resend, a test event, secret rotation, turning an endpoint off and on. A secret
// is shown once, on the answer to the form that made it, and never again.
extension ConsoleController {
    func addWebhookRoutes(to router: RouterGroup<ServerRequestContext>) {
        router.get("webhooks") { request, session in try await webhooksPage(request, session) }
        router.post("webhooks") { request, session in try await addEndpoint(request, session) }
        router.get("webhooks/:endpoint") { request, session in
            try await endpointPage(request, session, id: session.decoded("endpoint") ?? "")
        }
        router.post("webhooks/:endpoint/:action") { request, context in
            try await endpointAction(
                request,
                context,
                id: context.decoded("endpoint") ?? "",
                action: context.parameters.get("action") ?? ""
            )
        }
    }

    func webhooksPage(_ request: Request, _ session: ServerRequestContext) async throws -> Response {
        let signedIn = try requireOperator(session)
        var context = consoleContext("Webhooks", signedIn)
        context["notice"] = notice(request)
        context["endpoints"] = try await ledger.webhookEndpoints().map { endpoint -> [String: Any] in
            [
                "id": endpoint.id, "path": APIRequest.percentEncoded(endpoint.id), "app": endpoint.app,
                "url": endpoint.url, "events": Self.eventList(endpoint), "state": Self.state(endpoint),
            ]
        }
        context["types"] = WebhookEventType.all.map(\.rawValue)
        return render("console-webhooks", context)
    }

    /// Registers an endpoint from the form (its URL checked the way deliveries are) and shows its secret once.
    func addEndpoint(_ request: Request, _ session: ServerRequestContext) async throws -> Response {
        let signedIn = try requireOperator(session)
        let fields = try await form(request)
        try checkCSRF(fields, expected: signedIn.csrf)
        let app = (fields["app"] ?? "").trimmingCharacters(in: .whitespaces)
        guard !app.isEmpty, app.count <= 100 else {
            throw PageError(.badRequest, "Name the app (1 to 100 characters).")
        }
        let policy = WebhookAddressPolicy(allowPrivateNetworks: settings.webhooks.allowPrivateNetworks)
        do { _ = try policy.check((fields["url"] ?? "").trimmingCharacters(in: .whitespaces)) } catch {
            throw PageError(.badRequest, "That URL cannot receive events: \(error.message).")
        }
        let types = try Self.eventTypes(fields["events"] ?? "")
        let secret = StandardWebhookSecret()
        let endpoint = WebhookEndpoint(
            id: "ep_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(20).lowercased(),
            app: app,
            url: (fields["url"] ?? "").trimmingCharacters(in: .whitespaces),
            eventTypes: types,
            origin: "console",
            createdAt: clock()
        )
        try await ledger.registerWebhookEndpoint(endpoint, secret: secret.serialized.revealed, by: signedIn.name)
        var context = consoleContext("Endpoint added", signedIn)
        context["secret"] = secret.serialized.revealed
        context["path"] = APIRequest.percentEncoded(endpoint.id)
        return render("console-webhook-secret", context)
    }

    func endpointPage(_ request: Request, _ session: ServerRequestContext, id: String) async throws -> Response {
        let signedIn = try requireOperator(session)
        guard let endpoint = try await ledger.webhookEndpoints().first(where: { $0.id == id }) else {
            throw PageError(.notFound, "No such endpoint.")
        }
        var context = consoleContext("Endpoint \(endpoint.id)", signedIn)
        context["notice"] = notice(request)
        let path = APIRequest.percentEncoded(endpoint.id)
        context["path"] = path
        context["url"] = endpoint.url
        context["app"] = endpoint.app
        context["events"] = Self.eventList(endpoint)
        context["state"] = Self.state(endpoint)
        if let reason = endpoint.disabledReason { context["reason"] = reason }
        context["enabled"] = endpoint.disabledAt == nil
        context["deliveries"] = try await ledger.webhookDeliveries(endpoint: endpoint.id, limit: 200).map {
            delivery -> [String: Any] in
            [
                "eventId": delivery.eventId, "type": delivery.eventType.rawValue, "path": path,
                "created": WebhookEvent.timestamp(delivery.createdAt), "state": delivery.state,
                "attempts": delivery.attempts, "next": delivery.nextAttemptAt.map(WebhookEvent.timestamp) ?? "",
                "answer": delivery.lastStatus.map { "\($0)" } ?? delivery.lastError ?? "",
            ]
        }
        return render("console-webhook", context)
    }

    func endpointAction(_ request: Request, _ session: ServerRequestContext, id: String, action: String)
        async throws -> Response
    {
        let signedIn = try requireOperator(session)
        let fields = try await form(request)
        try checkCSRF(fields, expected: signedIn.csrf)
        guard try await ledger.webhookEndpoints().contains(where: { $0.id == id }) else {
            throw PageError(.notFound, "No such endpoint.")
        }
        let page = "/console/webhooks/" + APIRequest.percentEncoded(id)
        switch action {
        case "test":
            _ = try await ledger.sendTestWebhookEvent(endpoint: id, by: signedIn.name)
            return redirect(page + "?notice=test-sent")
        case "resend":
            let resent = try await ledger.resendWebhookEvent(fields["event"] ?? "", endpoint: id, by: signedIn.name)
            return redirect(page + (resent ? "?notice=resent" : "?notice=not-resent"))
        case "disable", "enable":
            _ = try await ledger.setWebhookEndpoint(
                id,
                enabled: action == "enable",
                by: signedIn.name,
                reason: "operator"
            )
            return redirect(page + "?notice=endpoint-\(action)d")
        case "rotate":
            let secret = StandardWebhookSecret()
            let until = clock().addingTimeInterval(TimeInterval(settings.webhooks.rotationOverlapHours * 3600))
            _ = try await ledger.rotateWebhookSecret(
                id,
                to: secret.serialized.revealed,
                overlapUntil: until,
                by: signedIn.name
            )
            var context = consoleContext("Secret rotated", signedIn)
            context["secret"] = secret.serialized.revealed
            context["overlap"] = WebhookEvent.timestamp(until)
            context["path"] = APIRequest.percentEncoded(id)
            return render("console-webhook-secret", context)
        default:
            throw PageError(.notFound, "No such action.")
        }
    }

    /// The event types a form names (comma-separated; empty: all), each one this server sends.
    static func eventTypes(_ text: String) throws -> [WebhookEventType]? {
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { return nil }
        let known = Set(WebhookEventType.all.map(\.rawValue))
        if let unknown = names.first(where: { !known.contains($0) }) {
            throw PageError(.badRequest, "\(unknown.prefix(60)) is not an event type.")
        }
        return Array(Set(names)).sorted().map(WebhookEventType.init(rawValue:))
    }

    static func eventList(_ endpoint: WebhookEndpoint) -> String {
        endpoint.eventTypes.map { $0.map(\.rawValue).joined(separator: ", ") } ?? "all"
    }

    static func state(_ endpoint: WebhookEndpoint) -> String {
        if endpoint.disabledAt != nil { return "off" }
        return endpoint.failingSince.map { "failing since \(WebhookEvent.timestamp($0))" } ?? "on"
    }
}
