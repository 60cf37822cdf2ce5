import Foundation
import HTTPTypes
import Hummingbird
import OpenCatCore

/// `/v1/webhooks/endpoints`: the app's backend registers where its events go, with the secret API key only (the
/// public key is in every copy of the app). The answer to a registration carries the endpoint's `whsec_` secret,
/// once; the list never does. A test event is queued on request.
struct WebhookEndpointsController: ServerController {
    let webhooks: any WebhookRepository
    let settings: WebhookSettings
    let clock: @Sendable () -> Date

    /// A registration: where, for which app, which types (absent: all).
    struct Registration: Decodable {
        var url: String
        var app: String?
        var events: [String]?
    }

    /// An endpoint as the API shows it; `secret` only in the answer to its registration.
    struct EndpointAnswer: Encodable {
        var id: String
        var app: String
        var url: String
        var events: [String]?
        var enabled: Bool
        var secret: String?
    }

    func addRoutes(to router: RouterGroup<ServerRequestContext>) {
        router.post("webhooks/endpoints") { request, context in
            try requireSecret(context)
            let body = try await request.decode(as: Registration.self, context: context)
            return try await register(body)
        }
        router.get("webhooks/endpoints") { _, context in
            try requireSecret(context)
            let endpoints = try await webhooks.webhookEndpoints().map { Self.answer($0, secret: nil) }
            return Self.json(.ok, ["endpoints": endpoints])
        }
        router.post("webhooks/endpoints/:endpoint/test") { _, context in
            try requireSecret(context)
            let id = context.decoded("endpoint") ?? ""
            guard let event = try await webhooks.sendTestWebhookEvent(endpoint: id, by: "api") else {
                throw APIError(.notFound, "not_found", "no enabled endpoint has that id")
            }
            return Self.json(.accepted, ["event_id": event])
        }
    }

    func requireSecret(_ context: ServerRequestContext) throws {
        guard try context.appCaller().isSecret else {
            throw APIError(.forbidden, "forbidden", "webhook endpoints are managed with a secret key")
        }
    }

    func register(_ body: Registration) async throws -> Response {
        let url = body.url.trimmingCharacters(in: .whitespaces)
        do { _ = try WebhookAddressPolicy(allowPrivateNetworks: settings.allowPrivateNetworks).check(url) } catch {
            throw APIError(.unprocessableContent, "invalid_url", error.message)
        }
        let app = body.app ?? "default"
        guard !app.isEmpty, app.utf8.count <= 100 else {
            throw APIError(.badRequest, "invalid_input", "app is 1 to 100 characters")
        }
        let known = Set(WebhookEventType.all.map(\.rawValue))
        if let unknown = body.events?.first(where: { !known.contains($0) }) {
            throw APIError(.badRequest, "invalid_input", "\(unknown.prefix(60)) is not an event type")
        }
        let secret = StandardWebhookSecret()
        let endpoint = WebhookEndpoint(
            id: "ep_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(20).lowercased(),
            app: app,
            url: url,
            eventTypes: body.events.map { Array(Set($0)).sorted().map(WebhookEventType.init(rawValue:)) },
            origin: "api",
            createdAt: clock()
        )
        try await webhooks.registerWebhookEndpoint(endpoint, secret: secret.serialized.revealed, by: "api")
        // The secret is in this answer only: no cache keeps it.
        var response = Self.json(.created, Self.answer(endpoint, secret: secret.serialized.revealed))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    static func answer(_ endpoint: WebhookEndpoint, secret: String?) -> EndpointAnswer {
        EndpointAnswer(
            id: endpoint.id,
            app: endpoint.app,
            url: endpoint.url,
            events: endpoint.eventTypes?.map(\.rawValue),
            enabled: endpoint.disabledAt == nil,
            secret: secret
        )
    }
}
