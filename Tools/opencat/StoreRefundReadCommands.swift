import ArgumentParser
import Foundation
import OpenCatCore
import StoreAdapters

/// `opencat store refund-status <store>`: a refund read by its own id (Stripe Retrieve a refund, PayPal Show refund
/// details).
struct StoreRefundStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refund-status",
        abstract: "Print a refund as the store reports it now, by the refund's id.",
        subcommands: [
            StoreRefundStatusOn<StripeCredentialOptions>.self, StoreRefundStatusOn<PayPalOperationCredentials>.self,
        ]
    )
}

struct StoreRefundStatusOn<Credentials: StoreCredentialOptions>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Credentials.store.rawValue,
            abstract: "Print a \(Credentials.store.rawValue) refund: its status, amount and payment."
        )
    }

    @OptionGroup var credentials: Credentials

    @Option(name: .customLong("refund-id"), help: "The refund's id (Stripe: re_…; PayPal: the refund id it answered).")
    var refundId: String

    func run() async throws {
        let adapter = try credentials.operations()
        try await VerifyOutput.run { try await adapter.refundStatus(id: refundId) }
    }
}

/// `opencat store refunds stripe`: a payment's refunds, a page at a time (Stripe List all refunds).
struct StoreRefunds: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refunds",
        abstract: "List a payment's refunds, newest first, a page at a time.",
        subcommands: [StoreRefundsOn<StripeCredentialOptions>.self]
    )
}

struct StoreRefundsOn<Credentials: StoreCredentialOptions>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Credentials.store.rawValue,
            abstract: "Print a page of a \(Credentials.store.rawValue) payment's refunds."
        )
    }

    @OptionGroup var credentials: Credentials

    @Option(name: .customLong("payment"), help: "The payment (Stripe: its PaymentIntent id, pi_…).")
    var payment: String

    @OptionGroup var page: PageOptions

    func run() async throws {
        let adapter = try credentials.operations()
        try await VerifyOutput.run {
            try await adapter.refunds(transactionId: payment, cursor: page.after, limit: page.limit(or: 10))
        }
    }
}

/// `opencat store cancel-refund stripe`: a refund still waiting for the customer cancelled (Stripe Cancel a refund).
struct StoreCancelRefund: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel-refund",
        abstract: "Cancel a refund the store has not paid out yet, then print it.",
        subcommands: [StoreCancelRefundOn<StripeCredentialOptions>.self]
    )
}

struct StoreCancelRefundOn<Credentials: StoreCredentialOptions>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Credentials.store.rawValue,
            abstract: "Cancel a \(Credentials.store.rawValue) refund waiting for the customer (requires_action)."
        )
    }

    @OptionGroup var credentials: Credentials

    @Option(name: .customLong("refund-id"), help: "The refund's id (re_…).")
    var refundId: String

    func run() async throws {
        let adapter = try credentials.operations()
        try await VerifyOutput.run { try await adapter.cancelRefund(id: refundId) }
    }
}

/// `--after` and `--limit` of a command that prints a page.
struct PageOptions: ParsableArguments {
    @Option(name: .customLong("after"), help: "The cursor a previous page printed (nextCursor).")
    var after: String?

    @Option(name: .customLong("limit"), help: "At most this many per page (1…100; default: the command's).")
    var limit: Int?

    func validate() throws {
        if let limit, !(1...100).contains(limit) { throw ValidationError("--limit is 1…100") }
    }

    /// `--limit`, or the command's own page size.
    func limit(or fallback: Int) -> Int { limit ?? fallback }
}

/// `opencat store subscriptions <store>`: a customer's subscriptions of every status (Apple Get All Subscription
/// Statuses, filtered with `--status`; Stripe List subscriptions).
struct StoreSubscriptions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriptions",
        abstract: "Print a customer's subscriptions of every status, each as verify maps it.",
        subcommands: [StoreSubscriptionsApple.self, StoreSubscriptionsStripe.self],
        aliases: ["subscription-statuses"]
    )
}

struct StoreSubscriptionsStripe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stripe",
        abstract: "Print a page of a Stripe customer's subscriptions (List subscriptions, status=all)."
    )

    @OptionGroup var credentials: StripeCredentialOptions

    @Option(name: .customLong("customer"), help: "The customer id (cus_…).")
    var customer: String

    @OptionGroup var page: PageOptions

    func run() async throws {
        let adapter = try credentials.adapter()
        try await VerifyOutput.run {
            PageOutput(
                try await adapter.subscriptions(customer: customer, cursor: page.after, limit: page.limit(or: 10))
            )
        }
    }
}

/// `opencat store invoices stripe`: a customer's invoices (Stripe List all invoices).
struct StoreInvoices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invoices",
        abstract: "Print a page of a customer's invoices, newest first (Stripe only).",
        subcommands: [StoreInvoicesStripe.self]
    )
}

struct StoreInvoicesStripe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stripe",
        abstract: "Print a page of a Stripe customer's invoices (List all invoices): billed, paid, owed."
    )

    @OptionGroup var credentials: StripeCredentialOptions

    @Option(name: .customLong("customer"), help: "The customer id (cus_…).")
    var customer: String

    @OptionGroup var page: PageOptions

    func run() async throws {
        let adapter = try credentials.adapter()
        try await VerifyOutput.run {
            try await adapter.invoices(customer: customer, limit: page.limit(or: 10), startingAfter: page.after)
        }
    }
}

/// `opencat store product-purchase google`: a one-time purchase read by its token alone (Google
/// `purchases.productsv2.getproductpurchasev2`), the product named by Google's answer; nothing is acknowledged.
struct StoreProductPurchase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "product-purchase",
        abstract: "Print a one-time purchase read by its purchase token alone (Google Play only).",
        subcommands: [StoreProductPurchaseGoogle.self]
    )
}

struct StoreProductPurchaseGoogle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "google",
        abstract: "Print a Google Play one-time purchase from its token (purchases.productsv2), without its product id."
    )

    @OptionGroup var credentials: GoogleOperationCredentials

    @Option(name: .customLong("token-file"), help: "File holding the purchase token.")
    var tokenFile: String

    func run() async throws {
        let adapter = try credentials.operations()
        let proof = PurchaseProof(
            store: .google,
            kind: .googleProductPurchaseToken,
            token: try VerifyOutput.readSecret(tokenFile, what: "purchase token"),
            productId: nil,
            context: ["packageName": credentials.packageName]
        )
        try await VerifyOutput.run { try await adapter.verify(proof) }
    }
}
