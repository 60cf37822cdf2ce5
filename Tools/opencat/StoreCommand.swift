import ArgumentParser
import Foundation
import OpenCatCore
import StoreAdapters

/// `opencat store <operation> <store> …`: act on a purchase at its store (refund, cancel, history) and print the
/// normalized result as JSON. Exit 0 done, 2 refused by the store (its reason on standard error), 64 usage.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Act on purchases at their store (refund, cancel, history) and print the result as JSON.",
        discussion: """
            The credential flags are verify's: secrets are read from files, never from arguments. A store that does \
            not offer an operation says so (exit 2, code unsupported).
            """,
        subcommands: [StoreRefund.self, StoreHistory.self, StoreCancel.self]
    )
}

/// The Stripe credentials every `opencat store … stripe` takes (as `opencat verify stripe`).
struct StripeCredentialOptions: ParsableArguments {
    @Option(name: .customLong("secret-key-file"), help: "File holding the secret key (sk_…/rk_…).")
    var secretKeyFile: String

    @Option(name: .customLong("base-url"), help: "API base URL override.")
    var baseURL: String?

    func adapter() throws -> StripeAdapter {
        try VerifyOutput.adapter(
            StripeAdapter.self,
            ["secretKeyFile": .string(secretKeyFile), "baseURL": baseURL.map(JSONValue.string)]
        )
    }
}

/// `opencat store refund stripe`.
struct StoreRefund: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refund",
        abstract: "Refund a purchase, in full or in part.",
        subcommands: [StoreRefundStripe.self]
    )
}

struct StoreRefundStripe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stripe",
        abstract: "Refund a Stripe PaymentIntent (POST /v1/refunds), then print it as Stripe reports it."
    )

    @OptionGroup var credentials: StripeCredentialOptions

    @Option(name: .customLong("payment-intent"), help: "The PaymentIntent id (pi_…).")
    var paymentIntent: String

    @Option(name: .customLong("amount"), help: "A partial refund's exact amount, e.g. 1.50 (with --currency).")
    var amount: String?

    @Option(name: .customLong("currency"), help: "The amount's ISO 4217 currency, e.g. USD.")
    var currency: String?

    func validate() throws {
        if (amount == nil) != (currency == nil) { throw ValidationError("--amount and --currency go together") }
        if let amount, let currency, Money(decimalString: amount, currency: currency) == nil {
            throw ValidationError("--amount \(amount) is not a decimal amount")
        }
    }

    func run() async throws {
        let adapter = try credentials.adapter()
        let money = amount.flatMap { amount in currency.flatMap { Money(decimalString: amount, currency: $0) } }
        try await VerifyOutput.run {
            try await adapter.refund(StoreRefundRequest(transactionId: paymentIntent, amount: money))
        }
    }
}

/// `opencat store history stripe`.
struct StoreHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List a customer's purchases, a page at a time.",
        subcommands: [StoreHistoryStripe.self]
    )
}

struct StoreHistoryStripe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stripe",
        abstract: "List a Stripe customer's PaymentIntents for OpenCat products."
    )

    @OptionGroup var credentials: StripeCredentialOptions

    @Option(name: .customLong("customer"), help: "The customer id (cus_…).")
    var customer: String

    @Option(name: .customLong("after"), help: "The cursor a previous page printed (nextCursor).")
    var after: String?

    @Option(name: .customLong("limit"), help: "At most this many per page (1…100).")
    var limit: Int = 20

    struct Page: Encodable {
        var purchases: [VerifiedPurchase]
        var nextCursor: String?
    }

    func validate() throws {
        guard (1...100).contains(limit) else { throw ValidationError("--limit is 1…100") }
    }

    func run() async throws {
        let adapter = try credentials.adapter()
        try await VerifyOutput.run {
            let page = try await adapter.transactionHistory(customer: customer, cursor: after, limit: limit)
            return Page(purchases: page.purchases, nextCursor: page.nextCursor)
        }
    }
}

/// `opencat store cancel stripe`.
struct StoreCancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a subscription, at once or at the end of its period.",
        subcommands: [StoreCancelStripe.self]
    )
}

struct StoreCancelStripe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stripe",
        abstract: "Cancel a Stripe subscription, then print it as Stripe reports it."
    )

    @OptionGroup var credentials: StripeCredentialOptions

    @Option(name: .customLong("subscription"), help: "The subscription id (sub_…).")
    var subscription: String

    @Flag(name: .customLong("at-period-end"), help: "Cancel when the paid period ends instead of now.")
    var atPeriodEnd = false

    func run() async throws {
        let adapter = try credentials.adapter()
        try await VerifyOutput.run { try await adapter.cancelSubscription(id: subscription, atPeriodEnd: atPeriodEnd) }
    }
}
