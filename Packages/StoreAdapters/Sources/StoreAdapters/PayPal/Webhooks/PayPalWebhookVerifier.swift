public import Foundation
public import HTTPTypes
import Logging
import OpenCatCore

/// Checks that a webhook delivery comes from PayPal by asking PayPal:
/// `POST /v1/notifications/verify-webhook-signature`, then reads the event.
///
/// The request carries the delivery's `PAYPAL-AUTH-ALGO`, `PAYPAL-CERT-URL`, `PAYPAL-TRANSMISSION-ID`,
/// `PAYPAL-TRANSMISSION-SIG` and `PAYPAL-TRANSMISSION-TIME` headers, the webhook id, and the event **exactly as
/// received**: the request body is assembled around the raw bytes, never re-encoded, because PayPal checks its
/// signature over them. See <https://developer.paypal.com/docs/api/webhooks/v1/#verify-webhook-signature_post>.
///
/// Before asking PayPal, the delivery's `PAYPAL-TRANSMISSION-TIME` must be within ``tolerance`` of now (the HTTP
/// client's clock), so an old genuine delivery cannot be replayed later; after PayPal confirms it, the optional
/// ``isReplay`` hook is asked about its `PAYPAL-TRANSMISSION-ID`, so a replay inside the window can be refused too.
///
/// Make one with ``PayPalAdapter/webhookVerifier(webhookId:tolerance:isReplay:)`` to share the adapter's access
/// token.
public struct PayPalWebhookVerifier: Sendable {
    /// The default distance accepted between `PAYPAL-TRANSMISSION-TIME` and now, either way (Stripe's default).
    public static let defaultTolerance: Duration = .seconds(300)

    /// Answers whether a transmission id was already accepted, and remembers it: `true` rejects the delivery as a
    /// replay. Called only for deliveries PayPal confirmed, so forged ids cannot fill the store; it should check
    /// and record atomically and remember ids for at least ``tolerance``.
    public typealias ReplayCheck = @Sendable (_ transmissionId: String) async -> Bool

    /// The transmission headers PayPal sends with each delivery, with the request field each one fills.
    public static let transmissionHeaders: [(header: String, field: String)] = [
        ("PAYPAL-AUTH-ALGO", "auth_algo"),
        ("PAYPAL-CERT-URL", "cert_url"),
        ("PAYPAL-TRANSMISSION-ID", "transmission_id"),
        ("PAYPAL-TRANSMISSION-SIG", "transmission_sig"),
        ("PAYPAL-TRANSMISSION-TIME", "transmission_time"),
    ]

    /// The webhook's id in the PayPal app (never empty).
    public let webhookId: String
    /// The largest accepted distance between `PAYPAL-TRANSMISSION-TIME` and now (either way); `nil` disables the
    /// check (not recommended: it allows replays).
    public var tolerance: Duration?
    /// The replay hook (see ``ReplayCheck``); `nil`: replays inside ``tolerance`` are not detected.
    public var isReplay: ReplayCheck?
    private let api: PayPalAPI

    /// Creates a verifier with its own access token cache.
    /// - Parameters:
    ///   - configuration: credentials, environment, base URL and HTTP client (whose clock gives "now").
    ///   - webhookId: the webhook's id (default: ``PayPalAdapter/Configuration/webhookId``).
    ///   - tolerance: see ``tolerance``.
    ///   - isReplay: see ``isReplay``.
    /// - Throws: ``StoreAdapterError`` ``StoreAdapterError/Code/misconfigured`` when no webhook id is configured or
    ///   it is blank: PayPal's answer would not bind the delivery to this webhook.
    public init(
        configuration: PayPalAdapter.Configuration,
        webhookId: String? = nil,
        tolerance: Duration? = PayPalWebhookVerifier.defaultTolerance,
        isReplay: ReplayCheck? = nil
    ) throws(StoreAdapterError) {
        try self.init(
            api: PayPalAPI(configuration: configuration),
            webhookId: webhookId ?? configuration.webhookId,
            tolerance: tolerance,
            isReplay: isReplay
        )
    }

    init(api: PayPalAPI, webhookId: String?, tolerance: Duration?, isReplay: ReplayCheck?) throws(StoreAdapterError) {
        guard let webhookId, !webhookId.allSatisfy(\.isWhitespace) else {
            throw StoreAdapterError(.misconfigured, store: .paypal, "no PayPal webhook id is configured")
        }
        self.api = api
        self.webhookId = webhookId
        self.tolerance = tolerance
        self.isReplay = isReplay
    }

    /// Verifies a delivery and reads its event.
    /// - Parameters:
    ///   - rawEvent: the request body, byte for byte.
    ///   - headers: the request's header fields.
    /// - Returns: the event.
    /// - Throws: ``PayPalWebhookError`` when the delivery is not genuine or not readable; ``StoreAdapterError``
    ///   when PayPal could not be asked (credentials, rate limit, outage, network).
    public func verify(rawEvent: Data, headers: HTTPFields) async throws -> PayPal.Event {
        var values: [(field: String, value: String)] = []
        for (header, field) in Self.transmissionHeaders {
            guard let name = HTTPField.Name(header), let value = headers[name], !value.isEmpty else {
                api.logger.debug(
                    "paypal webhook rejected",
                    metadata: ["reason": "missingHeader", "header": "\(header)"]
                )
                throw PayPalWebhookError(.missingHeader, "the delivery has no \(header) header")
            }
            values.append((field, value))
        }
        let transmissionId = values.first { $0.field == "transmission_id" }?.value ?? ""
        let transmissionTime = values.first { $0.field == "transmission_time" }?.value ?? ""
        try checkFreshness(transmissionTime)
        values.append(("webhook_id", webhookId))
        let event: PayPal.Event
        do {
            event = try PayPal.Event(payload: rawEvent)
        } catch {
            api.logger.debug("paypal webhook rejected", metadata: ["reason": "malformedPayload"])
            throw PayPalWebhookError(
                .malformedPayload,
                "the body is not a PayPal event (\(StoreHTTP.summary(of: error)))"
            )
        }
        let body = try Self.requestBody(fields: values, rawEvent: rawEvent)
        let response = try await api.send(.post, path: "/v1/notifications/verify-webhook-signature", body: body)
        guard response.status.code == 200 else {
            throw api.error(for: response, subject: "webhook verification")
        }
        let answer = try api.http.decode(PayPal.VerifyWebhookSignatureResponse.self, from: response.body)
        guard answer.verificationStatus == "SUCCESS" else {
            api.logger.debug("paypal webhook rejected", metadata: ["reason": "verificationFailed"])
            throw PayPalWebhookError(
                .verificationFailed,
                "PayPal did not confirm the delivery (\(answer.verificationStatus))"
            )
        }
        if let isReplay, await isReplay(transmissionId) {
            api.logger.debug("paypal webhook rejected", metadata: ["reason": "replayed"])
            throw PayPalWebhookError(.replayed, "this transmission id was already accepted")
        }
        return event
    }

    /// Refuses a transmission time that is unreadable or further than ``tolerance`` from the clock's now.
    func checkFreshness(_ transmissionTime: String) throws(PayPalWebhookError) {
        guard let tolerance else { return }
        guard let sentAt = PayPalDate.parse(transmissionTime) else {
            api.logger.debug("paypal webhook rejected", metadata: ["reason": "malformedTransmissionTime"])
            throw PayPalWebhookError(.staleTransmission, "PAYPAL-TRANSMISSION-TIME is not an ISO 8601 date")
        }
        let limit = Double(tolerance.components.seconds) + Double(tolerance.components.attoseconds) / 1e18
        let age = api.http.client.clock.currentDate.timeIntervalSince(sentAt)
        guard age.isFinite, abs(age) <= limit else {
            api.logger.debug("paypal webhook rejected", metadata: ["reason": "staleTransmission"])
            throw PayPalWebhookError(
                .staleTransmission,
                "PAYPAL-TRANSMISSION-TIME is \(StripeWebhookVerifier.describe(seconds: age)) from now (tolerance \(tolerance))"
            )
        }
    }

    /// Verifies a delivery whose headers come as a dictionary (names in any case).
    /// - Parameters:
    ///   - rawEvent: the request body, byte for byte.
    ///   - headers: the request's headers.
    /// - Returns: the event.
    /// - Throws: as the `HTTPFields` variant does.
    public func verify(rawEvent: Data, headers: [String: String]) async throws -> PayPal.Event {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return try await verify(rawEvent: rawEvent, headers: fields)
    }

    /// `{"auth_algo":…,…,"webhook_id":…,"webhook_event":<raw event bytes>}`: the string fields JSON-encoded, the
    /// event appended unchanged.
    static func requestBody(fields: [(field: String, value: String)], rawEvent: Data) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        var body = Data("{".utf8)
        for (field, value) in fields {
            body.append(try encoder.encode(field))
            body.append(UInt8(ascii: ":"))
            body.append(try encoder.encode(value))
            body.append(UInt8(ascii: ","))
        }
        body.append(Data("\"webhook_event\":".utf8))
        body.append(rawEvent)
        body.append(UInt8(ascii: "}"))
        return body
    }
}
