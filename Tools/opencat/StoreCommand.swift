import ArgumentParser
import Foundation
import OpenCatCore
import StoreAdapters

/// `opencat store <operation> <store> …`: act on a purchase at its store (refund, cancel, history) and print the
/// normalized result as JSON. Exit 0 done, 2 refused by the store (its reason on standard error), 64 usage.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract:
            "Act on purchases at their store (refund, cancel, extend, consume, history, …) and print the result as JSON.",
        discussion: """
            The credential flags are verify's: secrets are read from files, never from arguments. A store that does \
            not offer an operation says so (exit 2, code unsupported). Each HTTP attempt may take \
            OPENCAT_HTTP_TIMEOUT seconds (default 30) before a read is retried or the command reports a timeout.
            """,
        subcommands: [
            StoreHistory.self, StoreRefund.self, StoreCancel.self, StoreExtend.self, StoreExtendAll.self,
            StoreConsume.self, StoreAcknowledge.self, StoreRevoke.self, StoreSuspend.self, StoreResume.self,
            StoreLookupOrder.self,
            StoreConsumption.self, StoreNotificationHistory.self, StoreTestNotification.self,
            StoreSetAppAccountToken.self, StoreAppTransaction.self, StoreSubscriptions.self, StoreRefundStatus.self,
            StoreRefunds.self, StoreCancelRefund.self, StoreInvoices.self, StoreProductPurchase.self,
            StoreRetention.self,
        ]
    )
}

/// The Stripe credentials every `opencat store … stripe` takes (as `opencat verify stripe`).
struct StripeCredentialOptions: StoreCredentialOptions {
    static var store: Store { .stripe }

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

    func operations() throws -> any StoreOperations { try adapter() }

    func proof(_ target: PurchaseTarget, for operation: StoreOperation) throws -> PurchaseProof {
        PurchaseProof(
            store: .stripe,
            kind: .stripePaymentIntent,
            token: try target.token(),
            productId: target.productId
        )
    }
}

/// `opencat store refund stripe`.
struct StoreRefund: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refund",
        abstract: "Refund a purchase, in full or in part.",
        subcommands: [
            StoreRefundStripe.self, StoreRefundOn<GoogleOperationCredentials>.self,
            StoreRefundOn<PayPalOperationCredentials>.self, StoreRefundOn<SteamOperationCredentials>.self,
        ]
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

/// `opencat store history <store>`.
struct StoreHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List a customer's purchases, a page at a time.",
        subcommands: [
            StoreHistoryOn<StripeCredentialOptions>.self, StoreHistoryOn<AppleOperationCredentials>.self,
            StoreHistoryOn<PayPalOperationCredentials>.self, StoreHistoryOn<SteamOperationCredentials>.self,
        ]
    )
}

/// `opencat store cancel <store>`.
struct StoreCancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a subscription, at once or at the end of its period.",
        subcommands: [
            StoreCancelOn<StripeCredentialOptions>.self, StoreCancelOn<GoogleOperationCredentials>.self,
            StoreCancelOn<PayPalOperationCredentials>.self, StoreCancelOn<SteamOperationCredentials>.self,
        ]
    )
}

/// `opencat store extend <store>`.
struct StoreExtend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extend",
        abstract:
            "Move a subscription's renewal later (App Store extension, Google Play deferral, Steam AdjustAgreement).",
        subcommands: [
            StoreExtendOn<AppleOperationCredentials>.self, StoreExtendOn<GoogleOperationCredentials>.self,
            StoreExtendOn<SteamOperationCredentials>.self,
        ]
    )
}

/// `opencat store extend-all apple`.
struct StoreExtendAll: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extend-all",
        abstract: "Extend every subscriber of a product (App Store only).",
        subcommands: [StoreExtendAllApple.self]
    )
}

/// `opencat store consume google`.
struct StoreConsume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consume",
        abstract: "Mark a consumable consumed so it can be bought again (Google Play).",
        subcommands: [StoreProofOperationOn<GoogleOperationCredentials, ConsumeVerb>.self]
    )
}

/// `opencat store acknowledge google|apple`.
struct StoreAcknowledge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acknowledge",
        abstract:
            "Acknowledge a purchase so the store does not refund it (Google Play), or finish it (App Store Finish Transaction).",
        subcommands: [
            StoreProofOperationOn<GoogleOperationCredentials, AcknowledgeVerb>.self,
            StoreProofOperationOn<AppleOperationCredentials, AcknowledgeVerb>.self,
        ]
    )
}

/// `opencat store revoke google`.
struct StoreRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke a subscription: access ends now and the store refunds it (Google Play).",
        subcommands: [StoreProofOperationOn<GoogleOperationCredentials, RevokeVerb>.self]
    )
}

/// `opencat store suspend stripe|paypal`.
struct StoreSuspend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suspend",
        abstract: "Suspend a subscription's billing (PayPal suspend, Stripe pause_collection).",
        subcommands: [StoreSuspendOn<StripeCredentialOptions>.self, StoreSuspendOn<PayPalOperationCredentials>.self]
    )
}

/// `opencat store resume stripe|paypal`.
struct StoreResume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a paused or suspended subscription's billing (Stripe resume, PayPal activate).",
        subcommands: [StoreResumeOn<StripeCredentialOptions>.self, StoreResumeOn<PayPalOperationCredentials>.self]
    )
}

/// `opencat store lookup-order apple|google`.
struct StoreLookupOrder: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup-order",
        abstract: "The purchases of an order id from a customer's receipt (App Store, Google Play).",
        subcommands: [
            StoreLookupOrderOn<AppleOperationCredentials>.self, StoreLookupOrderOn<GoogleOperationCredentials>.self,
        ]
    )
}

/// `opencat store test-notification apple`.
struct StoreTestNotification: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test-notification",
        abstract: "Request a test notification and read its delivery (App Store only).",
        subcommands: [StoreTestNotificationApple.self]
    )
}

/// `opencat store consumption apple`.
struct StoreConsumption: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consumption",
        abstract: "Send consumption information about a refund request (App Store only).",
        subcommands: [StoreConsumptionApple.self]
    )
}

/// `opencat store notification-history apple`.
struct StoreNotificationHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notification-history",
        abstract: "The notifications the store sent or tried to send (App Store only).",
        subcommands: [StoreNotificationHistoryApple.self]
    )
}

/// `opencat store set-app-account-token apple`.
struct StoreSetAppAccountToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-app-account-token",
        abstract: "Link a purchase to an account after the fact (App Store only).",
        subcommands: [StoreSetAppAccountTokenApple.self]
    )
}

/// `opencat store app-transaction apple`.
struct StoreAppTransaction: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-transaction",
        abstract: "Print the customer's purchase or download of the app itself (App Store only).",
        subcommands: [StoreAppTransactionApple.self]
    )
}
