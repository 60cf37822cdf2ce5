public import Foundation
import HTTPTypes
public import OpenCatCore

extension PayPal {
    /// An order as `POST /v2/checkout/orders` answers it: its id, status and the links, among them the page where
    /// the buyer approves it (`payer-action`, or `approve` in older answers).
    ///
    /// See <https://developer.paypal.com/docs/api/orders/v2/#orders_create>.
    public struct CreatedOrder: Sendable, Hashable, Codable {
        /// A HATEOAS link.
        public struct Link: Sendable, Hashable, Codable {
            /// The URL.
            public var href: String
            /// What it is (`self`, `payer-action`, `approve`, `capture`).
            public var rel: String
            /// The HTTP method.
            public var method: String?
        }

        /// The order id.
        public var id: String
        /// `CREATED` or `PAYER_ACTION_REQUIRED`.
        public var status: Order.Status
        /// The links.
        public var links: [Link]?

        /// Where to send the buyer to approve the order.
        public var approvalURL: URL? {
            let link = links?.first { $0.rel == "payer-action" } ?? links?.first { $0.rel == "approve" }
            return link.flatMap { URL(string: $0.href) }
        }
    }
}

extension PayPalAdapter {
    /// What an order sells: one product at a fixed price, for one buyer.
    public struct OrderRequest: Sendable, Hashable {
        /// The product id (the purchase unit's `reference_id`, which ``verify(_:)`` reads).
        public var productId: String
        /// The description the approval page shows.
        public var description: String
        /// The total (exact): the unit price × ``quantity``.
        public var amount: Money
        /// How many units (key packs) the order buys: its one item's `quantity`, which ``verify(_:)`` reads back
        /// as the purchase's quantity. The total must divide into whole minor units per unit.
        public var quantity: Int
        /// The buyer (the purchase unit's `custom_id`).
        public var purchaser: String
        /// Where PayPal sends the buyer after approving (`?token=<order id>&PayerID=…` is appended).
        public var returnURL: URL
        /// Where PayPal sends the buyer who gives up.
        public var cancelURL: URL
        /// Makes the creation idempotent (`PayPal-Request-Id`).
        public var requestId: String

        /// A request.
        public init(
            productId: String,
            description: String,
            amount: Money,
            purchaser: String,
            returnURL: URL,
            cancelURL: URL,
            requestId: String,
            quantity: Int = 1
        ) {
            self.quantity = quantity
            self.productId = productId
            self.description = description
            self.amount = amount
            self.purchaser = purchaser
            self.returnURL = returnURL
            self.cancelURL = cancelURL
            self.requestId = requestId
        }
    }

    /// Creates an order with intent `CAPTURE` (`POST /v2/checkout/orders`); ``verify(_:)`` captures it once the
    /// buyer approved it.
    /// - Returns: the order, with its approval link.
    /// - Throws: ``StoreAdapterError``.
    public func createOrder(_ order: OrderRequest) async throws -> PayPal.CreatedOrder {
        let exponent =
            order.amount.currency.uppercased() == "JPY" || order.amount.currency.uppercased() == "HUF"
                || order.amount.currency.uppercased() == "TWD" ? 0 : 2
        var amount = order.amount.amount
        var rounded = Decimal()
        NSDecimalRound(&rounded, &amount, exponent, .plain)
        guard rounded == order.amount.amount, rounded > 0 else {
            throw StoreAdapterError(.invalidProof, store: .paypal, "the amount is not a positive whole minor amount")
        }
        let formatter = NumberFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.minimumFractionDigits = exponent
        formatter.maximumFractionDigits = exponent
        formatter.minimumIntegerDigits = 1
        formatter.usesGroupingSeparator = false
        let value = formatter.string(from: NSDecimalNumber(decimal: rounded)) ?? "\(rounded)"
        var unitPrice = rounded / Decimal(max(order.quantity, 1))
        var unitRounded = Decimal()
        NSDecimalRound(&unitRounded, &unitPrice, exponent, .plain)
        guard (1...99_999).contains(order.quantity), unitRounded * Decimal(order.quantity) == rounded else {
            throw StoreAdapterError(
                .invalidProof,
                store: .paypal,
                "the quantity must be 1…99999 and divide the amount into whole minor units"
            )
        }
        let unitValue = formatter.string(from: NSDecimalNumber(decimal: unitRounded)) ?? "\(unitRounded)"
        let currency = JSONValue.string(order.amount.currency.uppercased())
        let body: JSONValue = [
            "intent": "CAPTURE",
            "purchase_units": [
                [
                    "reference_id": .string(order.productId),
                    "custom_id": .string(order.purchaser),
                    "description": .string(order.description),
                    // The merchant verify(_:) requires as the payee.
                    "payee": ["merchant_id": .string(configuration.payeeMerchantId)],
                    "amount": [
                        "currency_code": currency, "value": .string(value),
                        "breakdown": ["item_total": ["currency_code": currency, "value": .string(value)]],
                    ],
                    // One item: the product and how many were bought, read back by verify(_:).
                    "items": [
                        [
                            "name": .string(String(order.description.prefix(127))),
                            "quantity": .string(String(order.quantity)),
                            "sku": .string(order.productId),
                            "category": "DIGITAL_GOODS",
                            "unit_amount": ["currency_code": currency, "value": .string(unitValue)],
                        ]
                    ],
                ]
            ],
            "payment_source": [
                "paypal": [
                    "experience_context": [
                        "return_url": .string(order.returnURL.absoluteString),
                        "cancel_url": .string(order.cancelURL.absoluteString),
                        "user_action": "PAY_NOW",
                        "shipping_preference": "NO_SHIPPING",
                    ]
                ]
            ],
        ]
        let response = try await api.send(
            .post,
            path: "/v2/checkout/orders",
            headers: [(.paypalRequestId, order.requestId)],
            body: body.serialized()
        )
        guard [200, 201].contains(response.status.code) else { throw api.error(for: response, subject: "order") }
        return try api.http.decode(PayPal.CreatedOrder.self, from: response.body)
    }
}
