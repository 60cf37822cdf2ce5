public import Foundation
import HTTPTypes
public import OpenCatCore

extension Stripe {
    /// A Checkout Session (the fields OpenCat reads).
    ///
    /// See <https://docs.stripe.com/api/checkout/sessions/object>.
    public struct CheckoutSession: Sendable, Hashable, Codable {
        /// The session id (`cs_…`).
        public var id: String
        /// `open`, `complete` or `expired`.
        public var status: String?
        /// `paid`, `unpaid` or `no_payment_required`.
        public var paymentStatus: String?
        /// The hosted page the buyer is sent to (while the session is open).
        public var url: String?
        /// The PaymentIntent the session created, once there is one (`pi_…`).
        public var paymentIntent: String?
        /// The reference the server gave (its user id).
        public var clientReferenceId: String?
        /// The total, in the currency's minor units.
        public var amountTotal: Int64?
        /// The currency, lowercase.
        public var currency: String?
        /// The session's metadata.
        public var metadata: [String: String]?
        /// Whether it is a live-mode session.
        public var livemode: Bool?

        /// A session.
        public init(id: String, status: String? = nil, paymentStatus: String? = nil, url: String? = nil) {
            self.id = id
            self.status = status
            self.paymentStatus = paymentStatus
            self.url = url
        }

        private enum CodingKeys: String, CodingKey {
            case id, status, url, currency, metadata, livemode
            case paymentStatus = "payment_status"
            case paymentIntent = "payment_intent"
            case clientReferenceId = "client_reference_id"
            case amountTotal = "amount_total"
        }

        /// Reads a session; `payment_intent` may be an id or an expanded object.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            status = try container.decodeIfPresent(String.self, forKey: .status)
            paymentStatus = try container.decodeIfPresent(String.self, forKey: .paymentStatus)
            url = try container.decodeIfPresent(String.self, forKey: .url)
            clientReferenceId = try container.decodeIfPresent(String.self, forKey: .clientReferenceId)
            amountTotal = try container.decodeIfPresent(Int64.self, forKey: .amountTotal)
            currency = try container.decodeIfPresent(String.self, forKey: .currency)
            metadata = try container.decodeIfPresent([String: String].self, forKey: .metadata)
            livemode = try container.decodeIfPresent(Bool.self, forKey: .livemode)
            switch try container.decodeIfPresent(Stripe.Expandable<Stripe.PaymentIntent>.self, forKey: .paymentIntent) {
            case .id(let id): paymentIntent = id
            case .object(let intent): paymentIntent = intent.id
            case nil: paymentIntent = nil
            }
        }
    }
}

extension StripeAdapter {
    /// What a one-time Checkout Session sells: one product at a fixed price, for one buyer.
    public struct CheckoutRequest: Sendable, Hashable {
        /// The product id (written to the PaymentIntent's `metadata[product_id]`, which ``verify(_:)`` reads).
        public var productId: String
        /// The name the hosted page shows.
        public var productName: String
        /// The unit price (exact; converted to the currency's minor units).
        public var unitPrice: Money
        /// How many units.
        public var quantity: Int
        /// The buyer (the PaymentIntent's `metadata[app_user_id]`, and the session's `client_reference_id`).
        public var purchaser: String
        /// The buyer's email, prefilled on the hosted page.
        public var email: String?
        /// Where Stripe sends the buyer after paying; `{CHECKOUT_SESSION_ID}` is replaced by the session id.
        public var successURL: URL
        /// Where Stripe sends the buyer who gives up.
        public var cancelURL: URL
        /// Makes the creation idempotent (`Idempotency-Key`).
        public var idempotencyKey: String

        /// A request.
        public init(
            productId: String,
            productName: String,
            unitPrice: Money,
            quantity: Int,
            purchaser: String,
            email: String?,
            successURL: URL,
            cancelURL: URL,
            idempotencyKey: String
        ) {
            self.productId = productId
            self.productName = productName
            self.unitPrice = unitPrice
            self.quantity = quantity
            self.purchaser = purchaser
            self.email = email
            self.successURL = successURL
            self.cancelURL = cancelURL
            self.idempotencyKey = idempotencyKey
        }
    }

    /// Creates a Checkout Session in payment mode (`POST /v1/checkout/sessions`) whose PaymentIntent carries the
    /// product and the buyer in its metadata, so that ``verify(_:)`` accepts it as any other PaymentIntent.
    /// - Returns: the session, with the hosted page's `url`.
    /// - Throws: ``StoreAdapterError``; `invalidProof` for a price that is not a whole number of minor units.
    public func createCheckoutSession(_ checkout: CheckoutRequest) async throws -> Stripe.CheckoutSession {
        guard checkout.quantity > 0 else {
            throw StoreAdapterError(.invalidProof, store: .stripe, "a checkout sells at least one unit")
        }
        let minor = try Self.minorUnits(checkout.unitPrice)
        let product = configuration.productMetadataKey
        let purchaser = configuration.purchaserMetadataKey
        var form: [(String, String)] = [
            ("mode", "payment"),
            // Stripe replaces the literal `{CHECKOUT_SESSION_ID}`; `URL` may have percent-encoded its braces.
            (
                "success_url",
                checkout.successURL.absoluteString.replacingOccurrences(
                    of: "%7BCHECKOUT_SESSION_ID%7D",
                    with: "{CHECKOUT_SESSION_ID}"
                )
            ),
            ("cancel_url", checkout.cancelURL.absoluteString),
            ("client_reference_id", checkout.purchaser),
            ("line_items[0][quantity]", String(checkout.quantity)),
            ("line_items[0][price_data][currency]", checkout.unitPrice.currency.lowercased()),
            ("line_items[0][price_data][unit_amount]", String(minor)),
            ("line_items[0][price_data][product_data][name]", checkout.productName),
            ("metadata[\(product)]", checkout.productId),
            ("metadata[\(purchaser)]", checkout.purchaser),
            ("payment_intent_data[metadata][\(product)]", checkout.productId),
            ("payment_intent_data[metadata][\(purchaser)]", checkout.purchaser),
            // How many units: verify(_:) reads it back from the PaymentIntent as the purchase's quantity.
            ("metadata[\(configuration.quantityMetadataKey)]", String(checkout.quantity)),
            ("payment_intent_data[metadata][\(configuration.quantityMetadataKey)]", String(checkout.quantity)),
        ]
        if let email = checkout.email { form.append(("customer_email", email)) }
        var request = APIRequest.make(.post, baseURL: configuration.baseURL, path: "/v1/checkout/sessions")
        request.headerFields[HTTPField.Name("Idempotency-Key")!] = checkout.idempotencyKey
        let response = try await http.send(
            authorizedRequest(request, form: true),
            body: Data(APIRequest.query(form).utf8),
            idempotent: true
        )
        guard response.status.code == 200 else { throw error(for: response, resource: "Checkout Session") }
        return try http.decode(Stripe.CheckoutSession.self, from: response.body)
    }

    /// Reads a Checkout Session (`GET /v1/checkout/sessions/{id}`).
    /// - Throws: ``StoreAdapterError``; `invalidProof` for an id that is not a session id.
    public func checkoutSession(id: String) async throws -> Stripe.CheckoutSession {
        guard id.hasPrefix("cs_"), id.count <= 255, id.utf8.allSatisfy({ $0 == 0x5F || Self.isAlphanumeric($0) })
        else {
            throw StoreAdapterError(.invalidProof, store: .stripe, "not a Checkout Session id")
        }
        let request = APIRequest.make(.get, baseURL: configuration.baseURL, path: "/v1/checkout/sessions/\(id)")
        let response = try await http.send(authorizedRequest(request, form: false))
        guard response.status.code == 200 else { throw error(for: response, resource: "Checkout Session") }
        return try http.decode(Stripe.CheckoutSession.self, from: response.body)
    }

    /// A request with Stripe's headers: the secret key, the pinned API version, JSON answers, a form body.
    func authorizedRequest(_ request: HTTPRequest, form: Bool) -> HTTPRequest {
        var request = request
        request.headerFields[.authorization] = "Bearer \(configuration.secretKey.revealed)"
        request.headerFields[.stripeVersion] = configuration.apiVersion
        request.headerFields[.accept] = "application/json"
        if form { request.headerFields[.contentType] = "application/x-www-form-urlencoded" }
        return request
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
