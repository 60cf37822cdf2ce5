public import Foundation
public import OpenCatCore

/// The reversed orders of one `ISteamMicroTxn/GetReport` batch, and where the next batch starts: the answer of
/// ``SteamAdapter/refundReport(since:maxResults:type:)``.
///
/// Steam has no push notifications for refunds and chargebacks: a server polls `GetReport` (at least daily, as
/// often as every minute) and claws back what the reversed orders granted. Page forward by passing ``cursor`` as
/// the next `since`. Steam starts a report *at* its `time`, so the orders updated at the cursor's second come back
/// in the next batch too: apply reversals idempotently (by ``Order/transactionId`` or ``Order/orderId`` and
/// ``Order/status``). Stop when the cursor no longer advances (``cursor`` == ``since``); Steam says a batch may
/// hold fewer orders than asked for even when more exist, so a short batch is not the end.
public struct SteamRefundReport: Sendable, Hashable, Codable {
    /// Where the batch started.
    public var since: Date
    /// The latest `time` (an order's most recent update) among *all* the batch's orders, reversed or not; ``since``
    /// when the batch was empty. The `since` of the next call.
    public var cursor: Date
    /// How many orders the batch listed, of every status.
    public var scannedOrders: Int
    /// The orders whose status is a reversal (`Refunded`, `PartialRefund`, `Chargedback`,
    /// `RefundedSuspectedFraud`, `RefundedFriendlyFraud`), in the report's order.
    public var orders: [Order]

    /// Creates a report.
    public init(since: Date, cursor: Date, scannedOrders: Int, orders: [Order]) {
        self.since = since
        self.cursor = cursor
        self.scannedOrders = scannedOrders
        self.orders = orders
    }

    /// One reversed order.
    public struct Order: Sendable, Hashable, Codable {
        /// The partner's 64-bit order id (`"0"` for a recurring subscription started from the Steam store).
        public var orderId: String
        /// Steam's 64-bit transaction id (the `transactionId` of the ``VerifiedPurchase`` it reverses).
        public var transactionId: String?
        /// The buyer's SteamID64.
        public var steamId: String?
        /// Steam's status, as sent: `Refunded`, `PartialRefund`, `Chargedback`, `RefundedSuspectedFraud` or
        /// `RefundedFriendlyFraud`.
        public var status: String
        /// When the order was last updated (the reversal, for an order reversed after it succeeded).
        public var time: Date
        /// The ISO 4217 currency of the amounts.
        public var currency: String?
        /// The billing agreement, for a recurring subscription's payment.
        public var agreementId: String?
        /// The reversed items: every item of a full reversal; for a `PartialRefund`, the items whose own
        /// `itemstatus` is a reversal.
        public var refundedItems: [Item]
        /// The sum of the reversed items' `amount` (VAT excluded, exact cents), or `nil` when the report lacks a
        /// currency or an amount.
        public var refundedAmount: Money?

        /// Creates an order.
        public init(
            orderId: String,
            transactionId: String? = nil,
            steamId: String? = nil,
            status: String,
            time: Date,
            currency: String? = nil,
            agreementId: String? = nil,
            refundedItems: [Item] = [],
            refundedAmount: Money? = nil
        ) {
            self.orderId = orderId
            self.transactionId = transactionId
            self.steamId = steamId
            self.status = status
            self.time = time
            self.currency = currency
            self.agreementId = agreementId
            self.refundedItems = refundedItems
            self.refundedAmount = refundedAmount
        }

        /// Whether only some items were refunded (`PartialRefund`).
        public var isPartial: Bool { status == "PartialRefund" }
        /// Whether the payment was disputed or found fraudulent (`Chargedback`).
        public var isChargeback: Bool { status == "Chargedback" }
    }

    /// One reversed item of an order.
    public struct Item: Sendable, Hashable, Codable {
        /// The game's item id (the product id).
        public var itemId: String
        /// How many units.
        public var quantity: Int64
        /// What the user paid for the line, VAT excluded, in exact cents; `nil` when the report has no amount or
        /// no currency.
        public var amount: Money?
        /// The line's VAT or tax, in exact cents; `nil` when absent.
        public var vat: Money?
        /// The item's own status (`Refunded`, `Chargedback`, …), when the report gives one.
        public var status: String?

        /// Creates an item.
        public init(itemId: String, quantity: Int64 = 1, amount: Money? = nil, vat: Money? = nil, status: String? = nil)
        {
            self.itemId = itemId
            self.quantity = quantity
            self.amount = amount
            self.vat = vat
            self.status = status
        }
    }
}
