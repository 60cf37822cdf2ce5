import ArgumentParser
import Foundation
import OpenCatCore
import StoreAdapters

/// One store's credentials for `opencat store <verb> <store>`: the flags `opencat verify <store>` takes, building
/// the adapter whose ``StoreOperations`` the verb calls.
protocol StoreCredentialOptions: ParsableArguments {
    /// The store.
    static var store: Store { get }
    /// The store's adapter.
    func operations() throws -> any StoreOperations
    /// The proof of a purchase from the common ``PurchaseTarget`` flags, for an operation (`consume`, `extend`…).
    func proof(_ target: PurchaseTarget, for operation: StoreOperation) throws -> PurchaseProof
}

/// The purchase an operation acts on: an id, or a token read from a file (Google's purchase tokens are secrets).
struct PurchaseTarget: ParsableArguments {
    @Option(
        name: .customLong("id"),
        help: """
            The purchase's id (Apple: its original transaction id; Steam: the order id, for extend \
            <steamid>:<agreementid>).
            """
    )
    var id: String?

    @Option(name: .customLong("token-file"), help: "File holding the purchase token (Google).")
    var tokenFile: String?

    @Option(name: .customLong("product-id"), help: "The purchase's product (Google: required).")
    var productId: String?

    @Flag(name: .customLong("subscription"), help: "The token is a subscription's (Google).")
    var subscription = false

    func token() throws -> Secret<String> {
        if let tokenFile { return try VerifyOutput.readSecret(tokenFile, what: "purchase token") }
        guard let id, !id.isEmpty else { throw ValidationError("give --id ID or --token-file FILE") }
        return Secret(id)
    }
}

/// The app and its App Store Connect API key: what every App Store Server API call (and the Retention Messaging API)
/// signs its token with.
struct AppStoreConnectKeyOptions: ParsableArguments {
    @Option(name: .customLong("bundle-id"), help: "The app's bundle id.")
    var bundleId: String

    @Option(name: .customLong("issuer-id"), help: "App Store Connect API issuer id.")
    var issuerId: String

    @Option(name: .customLong("key-id"), help: "App Store Connect API key id.")
    var keyId: String

    @Option(name: .customLong("key-file"), help: "The .p8 private key file.")
    var keyFile: String
}

/// `opencat store … apple`: the App Store Server API credentials of `opencat verify apple` (lookups).
struct AppleOperationCredentials: StoreCredentialOptions {
    static var store: Store { .apple }

    @OptionGroup var key: AppStoreConnectKeyOptions

    @Option(name: .customLong("root"), help: "A trusted root certificate (PEM or DER). Repeatable.")
    var roots: [String] = []

    @Option(name: .customLong("environment"), help: "production (default), sandbox or any.")
    var environment: String = "production"

    @Option(name: .customLong("base-url"), help: "Production API base URL override.")
    var baseURL: String?

    @Option(name: .customLong("sandbox-base-url"), help: "Sandbox API base URL override.")
    var sandboxBaseURL: String?

    func validate() throws {
        guard !roots.isEmpty else { throw ValidationError("give at least one --root CERT (Apple Root CA - G3)") }
    }

    func operations() throws -> any StoreOperations { try apple() }

    /// The adapter itself, for the App Store's own operations.
    func apple() throws -> AppleStoreAdapter {
        try VerifyOutput.adapter(
            AppleStoreAdapter.self,
            [
                "bundleId": .string(key.bundleId), "rootCertificates": .array(roots.map(JSONValue.string)),
                "environment": .string(environment), "issuerId": .string(key.issuerId), "keyId": .string(key.keyId),
                "privateKeyFile": .string(key.keyFile), "productionBaseURL": baseURL.map(JSONValue.string),
                "sandboxBaseURL": sandboxBaseURL.map(JSONValue.string),
            ]
        )
    }

    func proof(_ target: PurchaseTarget, for operation: StoreOperation) throws -> PurchaseProof {
        guard let id = target.id else { throw ValidationError("give --id ORIGINAL_TRANSACTION_ID") }
        return PurchaseProof(
            store: .apple,
            kind: .appleTransactionId,
            token: Secret(id),
            productId: target.productId,
            transactionId: id
        )
    }
}

/// `opencat store … google`: the Play Developer API credentials of `opencat verify google`.
struct GoogleOperationCredentials: StoreCredentialOptions {
    static var store: Store { .google }

    @Option(name: .customLong("package"), help: "The app's package name.")
    var packageName: String

    @Option(name: .customLong("service-account"), help: "The service account's JSON key file.")
    var serviceAccountFile: String

    @Option(name: .customLong("base-url"), help: "API base URL override.")
    var baseURL: String?

    @Option(name: .customLong("token-url"), help: "OAuth token endpoint override.")
    var tokenURL: String?

    func operations() throws -> any StoreOperations {
        try VerifyOutput.adapter(
            GooglePlayAdapter.self,
            [
                "packageName": .string(packageName), "serviceAccountFile": .string(serviceAccountFile),
                "baseURL": baseURL.map(JSONValue.string), "tokenURL": tokenURL.map(JSONValue.string),
                // An operation never acknowledges as a side effect of reading the purchase again.
                "acknowledge": .bool(false),
            ]
        )
    }

    func proof(_ target: PurchaseTarget, for operation: StoreOperation) throws -> PurchaseProof {
        guard target.tokenFile != nil else { throw ValidationError("give --token-file FILE (the purchase token)") }
        guard let productId = target.productId else { throw ValidationError("give --product-id PRODUCT") }
        let subscription =
            target.subscription || [.extendSubscription, .revoke, .cancelSubscription].contains(operation)
        return PurchaseProof(
            store: .google,
            kind: subscription ? .googleSubscriptionPurchaseToken : .googleProductPurchaseToken,
            token: try target.token(),
            productId: productId,
            context: ["packageName": packageName]
        )
    }
}

/// `opencat store … paypal`: the REST app credentials of `opencat verify paypal`.
struct PayPalOperationCredentials: StoreCredentialOptions {
    static var store: Store { .paypal }

    @Option(name: .customLong("client-id"), help: "The REST app's client id.")
    var clientId: String

    @Option(name: .customLong("client-secret-file"), help: "File holding the client secret.")
    var clientSecretFile: String

    @Option(name: .customLong("payee-merchant-id"), help: "The merchant id that receives the payments.")
    var payeeMerchantId: String

    @Option(
        name: .customLong("price"),
        help:
            "PRODUCT=AMOUNT:CURRENCY, a product's exact price (e.g. gems_500=5.00:USD), checked when the order is read again. Repeatable."
    )
    var prices: [String] = []

    @Option(
        name: .customLong("subscription-plan"),
        help:
            "PLAN=PRODUCT, the product a billing plan sells (e.g. P-5ML4271244454362WXNWU5NQ=pro_monthly). Repeatable."
    )
    var subscriptionPlans: [String] = []

    @Flag(name: .customLong("sandbox"), help: "Use PayPal's sandbox.")
    var sandbox = false

    @Option(name: .customLong("base-url"), help: "API base URL override.")
    var baseURL: String?

    func validate() throws {
        _ = try priceTable()
        _ = try planTable()
    }

    /// `--subscription-plan` as the adapter's `subscriptionPlans` setting.
    func planTable() throws -> [String: JSONValue] {
        var table: [String: JSONValue] = [:]
        for plan in subscriptionPlans {
            let parts = plan.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError(
                    "--subscription-plan takes PLAN=PRODUCT, e.g. P-5ML4271244454362WXNWU5NQ=pro_monthly"
                )
            }
            table[parts[0]] = .string(parts[1])
        }
        return table
    }

    /// `--price` as the adapter's `prices` setting.
    func priceTable() throws -> [String: JSONValue] {
        var table: [String: JSONValue] = [:]
        for price in prices {
            let parts = price.split(separator: "=", maxSplits: 1).map(String.init)
            let money = parts.count == 2 ? parts[1].split(separator: ":").map(String.init) : []
            guard money.count == 2, Money(decimalString: money[0], currency: money[1]) != nil else {
                throw ValidationError("--price takes PRODUCT=AMOUNT:CURRENCY, e.g. gems_500=5.00:USD")
            }
            table[parts[0]] = ["amount": .string(money[0]), "currency": .string(money[1])]
        }
        return table
    }

    func operations() throws -> any StoreOperations {
        try VerifyOutput.adapter(
            PayPalAdapter.self,
            [
                "clientId": .string(clientId), "clientSecretFile": .string(clientSecretFile),
                "environment": .string(sandbox ? "sandbox" : "live"), "payeeMerchantId": .string(payeeMerchantId),
                "prices": .object(try priceTable()), "subscriptionPlans": .object(try planTable()),
                "baseURL": baseURL.map(JSONValue.string),
                "captureApproved": .bool(false),
            ]
        )
    }

    func proof(_ target: PurchaseTarget, for operation: StoreOperation) throws -> PurchaseProof {
        PurchaseProof(store: .paypal, kind: .paypalOrder, token: try target.token(), productId: target.productId)
    }
}

/// `opencat store … steam`: the publisher key of `opencat verify steam`.
struct SteamOperationCredentials: StoreCredentialOptions {
    static var store: Store { .steam }

    @Option(name: .customLong("app-id"), help: "The Steam app id.")
    var appId: UInt32

    @Option(name: .customLong("key-file"), help: "File holding the publisher Web API key.")
    var keyFile: String

    @Flag(name: .customLong("sandbox"), help: "Use ISteamMicroTxnSandbox.")
    var sandbox = false

    @Option(name: .customLong("base-url"), help: "API base URL override.")
    var baseURL: String?

    func operations() throws -> any StoreOperations {
        try VerifyOutput.adapter(
            SteamAdapter.self,
            [
                "appId": .integer(Int64(appId)), "publisherKeyFile": .string(keyFile), "sandbox": .bool(sandbox),
                "baseURL": baseURL.map(JSONValue.string), "finalizeApproved": .bool(false),
            ]
        )
    }

    /// An order, or for extend a billing agreement given as `<steamid>:<agreementid>` (as cancel takes it).
    func proof(_ target: PurchaseTarget, for operation: StoreOperation) throws -> PurchaseProof {
        let token = try target.token()
        guard operation == .extendSubscription else {
            return PurchaseProof(store: .steam, kind: .steamOrder, token: token, productId: target.productId)
        }
        do {
            return try SteamAdapter.agreementProof(subscriptionId: token.revealed, productId: target.productId)
        } catch {
            throw ValidationError("--id: a Steam agreement is <steamid>:<agreementid>")
        }
    }
}

/// `opencat store refund <store>` (Stripe's, by PaymentIntent, is ``StoreRefundStripe``).
struct StoreRefundOn<Credentials: StoreCredentialOptions>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Credentials.store.rawValue,
            abstract: "Refund a \(Credentials.store.rawValue) purchase, then print it as the store reports it."
        )
    }

    @OptionGroup var credentials: Credentials

    @Option(
        name: .customLong("refund-id"),
        help: "The id the store refunds by (Google: the order id GPA.…; PayPal: the capture id; Steam: the order id)."
    )
    var refundId: String

    @OptionGroup var target: PurchaseTarget

    @Option(name: .customLong("amount"), help: "A partial refund's exact amount, e.g. 1.50 (with --currency).")
    var amount: String?

    @Option(name: .customLong("currency"), help: "The amount's ISO 4217 currency, e.g. USD.")
    var currency: String?

    @Option(
        name: .customLong("idempotency-key"),
        help: "Makes a repeated refund harmless (default: derived from the id and the amount)."
    )
    var idempotencyKey: String?

    func validate() throws {
        if (amount == nil) != (currency == nil) { throw ValidationError("--amount and --currency go together") }
        if let amount, let currency, Money(decimalString: amount, currency: currency) == nil {
            throw ValidationError("--amount \(amount) is not a decimal amount")
        }
    }

    func run() async throws {
        let adapter = try credentials.operations()
        let money = amount.flatMap { amount in currency.flatMap { Money(decimalString: amount, currency: $0) } }
        let proof =
            target.id != nil || target.tokenFile != nil ? try credentials.proof(target, for: .refund) : nil
        try await VerifyOutput.run {
            try await adapter.refund(
                StoreRefundRequest(transactionId: refundId, amount: money, idempotencyKey: idempotencyKey, proof: proof)
            )
        }
    }
}

/// `opencat store history <store>`.
struct StoreHistoryOn<Credentials: StoreCredentialOptions>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Credentials.store.rawValue,
            abstract: "Print a page of a \(Credentials.store.rawValue) customer's purchases, newest first."
        )
    }

    @OptionGroup var credentials: Credentials

    @Option(
        name: .customLong("customer"),
        help: "The customer (Apple: any of their transaction ids; PayPal: a subscription id; Steam: a steamid)."
    )
    var customer: String

    @OptionGroup var page: PageOptions

    func run() async throws {
        let adapter = try credentials.operations()
        try await VerifyOutput.run {
            PageOutput(
                try await adapter.transactionHistory(customer: customer, cursor: page.after, limit: page.limit(or: 20))
            )
        }
    }
}

/// `opencat store cancel <store>`.
struct StoreCancelOn<Credentials: StoreCredentialOptions>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Credentials.store.rawValue,
            abstract: "Cancel a \(Credentials.store.rawValue) subscription, then print it as the store reports it."
        )
    }

    @OptionGroup var credentials: Credentials

    @Option(
        name: .customLong("subscription"),
        help: "The subscription (Google: its purchase token, read with --token-file instead; Steam: STEAMID:AGREEMENT)."
    )
    var subscription: String?

    @Option(name: .customLong("token-file"), help: "File holding the subscription's purchase token (Google).")
    var tokenFile: String?

    @Flag(name: .customLong("at-period-end"), help: "Cancel when the paid period ends instead of now.")
    var atPeriodEnd = false

    func run() async throws {
        let adapter = try credentials.operations()
        let id = try tokenFile.map { try VerifyOutput.readSecret($0, what: "purchase token").revealed } ?? subscription
        guard let id else { throw ValidationError("give --subscription ID or --token-file FILE") }
        try await VerifyOutput.run { try await adapter.cancelSubscription(id: id, atPeriodEnd: atPeriodEnd) }
    }
}

/// `opencat store suspend <store>`.
struct StoreSuspendOn<Credentials: StoreCredentialOptions>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Credentials.store.rawValue,
            abstract: "Suspend a \(Credentials.store.rawValue) subscription's billing."
        )
    }

    @OptionGroup var credentials: Credentials

    @Option(name: .customLong("subscription"), help: "The subscription id.")
    var subscription: String

    @Option(name: .customLong("reason"), help: "Why, where the store records it (PayPal).")
    var reason: String = "Suspended by the merchant"

    func run() async throws {
        let adapter = try credentials.operations()
        try await VerifyOutput.run { try await adapter.suspendSubscription(id: subscription, reason: reason) }
    }
}

/// `opencat store lookup-order <store>`: the purchases of an order id (App Store Look Up Order ID, Google `orders.get`).
struct StoreLookupOrderOn<Credentials: StoreCredentialOptions>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Credentials.store.rawValue,
            abstract: "Print the purchases of a \(Credentials.store.rawValue) order id."
        )
    }

    @OptionGroup var credentials: Credentials

    @Option(
        name: .customLong("order-id"),
        help: "The order id (App Store: e.g. MK5TTTVWJH; Google: GPA.…, repeatable: orders.batchget)."
    )
    var orderIds: [String]

    func validate() throws {
        guard !orderIds.isEmpty else { throw ValidationError("give --order-id ID") }
        guard orderIds.count == 1 || Credentials.store == .google else {
            throw ValidationError("only Google Play looks up several orders at once")
        }
    }

    func run() async throws {
        let adapter = try credentials.operations()
        try await VerifyOutput.run {
            if orderIds.count > 1, let google = adapter as? GooglePlayAdapter {
                return PageOutput(
                    PurchasePage(purchases: try await google.lookUpOrders(orderIds: orderIds), nextCursor: nil)
                )
            }
            return PageOutput(
                PurchasePage(purchases: try await adapter.lookUpOrder(orderId: orderIds[0]), nextCursor: nil)
            )
        }
    }
}

/// `opencat store resume <store>`.
struct StoreResumeOn<Credentials: StoreCredentialOptions>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Credentials.store.rawValue,
            abstract:
                "Resume a paused or suspended \(Credentials.store.rawValue) subscription's billing, then print it."
        )
    }

    @OptionGroup var credentials: Credentials

    @Option(name: .customLong("subscription"), help: "The subscription id.")
    var subscription: String

    @Option(name: .customLong("reason"), help: "Why, where the store records it (PayPal).")
    var reason: String = "Reactivated by the merchant"

    func run() async throws {
        let adapter = try credentials.operations()
        try await VerifyOutput.run { try await adapter.resumeSubscription(id: subscription, reason: reason) }
    }
}

/// `opencat store extend <store>`: one subscription (or, on the App Store, every subscriber of a product).
struct StoreExtendOn<Credentials: StoreCredentialOptions>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Credentials.store.rawValue,
            abstract: "Move a \(Credentials.store.rawValue) subscription's renewal later, then print it."
        )
    }

    @OptionGroup var credentials: Credentials

    @OptionGroup var target: PurchaseTarget

    @Option(name: .customLong("days"), help: "Whole days to add (App Store: 1 to 90; Steam: to the next payment day).")
    var days: Int

    @Option(
        name: .customLong("reason"),
        help: "0 undeclared, 1 customer satisfaction (default), 2 other, 3 service issue."
    )
    var reason: Int = 1

    @Option(name: .customLong("request-id"), help: "A UUID making a repeated request harmless (default: new).")
    var requestId: String?

    func run() async throws {
        guard let reason = StoreExtension.Reason(rawValue: reason) else { throw ValidationError("--reason: 0 to 3") }
        let change = StoreExtension(days: days, reason: reason, requestIdentifier: requestId ?? UUID().uuidString)
        let adapter = try credentials.operations()
        let proof = try credentials.proof(target, for: .extendSubscription)
        try await VerifyOutput.run { try await adapter.extendSubscription(proof, by: change) }
    }
}

/// `opencat store consume|acknowledge|revoke <store>`: an operation on one purchase, printed as the store reports
/// the purchase afterwards.
struct StoreProofOperationOn<Credentials: StoreCredentialOptions, Verb: ProofVerb>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: Credentials.store.rawValue, abstract: Verb.abstract)
    }

    @OptionGroup var credentials: Credentials

    @OptionGroup var target: PurchaseTarget

    func run() async throws {
        let adapter = try credentials.operations()
        let proof = try credentials.proof(target, for: Verb.operation)
        try await VerifyOutput.run { try await Verb.perform(adapter, proof) }
    }
}

/// An operation on one purchase (``StoreProofOperationOn``).
protocol ProofVerb {
    static var operation: StoreOperation { get }
    static var abstract: String { get }
    static func perform(_ adapter: any StoreOperations, _ proof: PurchaseProof) async throws -> VerifiedPurchase
}

enum ConsumeVerb: ProofVerb {
    static var operation: StoreOperation { .consume }
    static var abstract: String { "Mark a consumable consumed, then print it as the store reports it." }
    static func perform(_ adapter: any StoreOperations, _ proof: PurchaseProof) async throws -> VerifiedPurchase {
        try await adapter.consume(proof)
    }
}

enum AcknowledgeVerb: ProofVerb {
    static var operation: StoreOperation { .acknowledge }
    static var abstract: String { "Acknowledge a purchase, then print it as the store reports it." }
    static func perform(_ adapter: any StoreOperations, _ proof: PurchaseProof) async throws -> VerifiedPurchase {
        try await adapter.acknowledge(proof)
    }
}

enum RevokeVerb: ProofVerb {
    static var operation: StoreOperation { .revoke }
    static var abstract: String { "Revoke a subscription (access ends, the store refunds it), then print it." }
    static func perform(_ adapter: any StoreOperations, _ proof: PurchaseProof) async throws -> VerifiedPurchase {
        try await adapter.revoke(proof)
    }
}

/// A page of purchases as the CLI prints it.
struct PageOutput: Encodable {
    var purchases: [VerifiedPurchase]
    var nextCursor: String?

    init(_ page: PurchasePage) {
        purchases = page.purchases
        nextCursor = page.nextCursor
    }
}
