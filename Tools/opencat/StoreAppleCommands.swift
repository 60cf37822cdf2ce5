import ArgumentParser
import Foundation
import OpenCatCore
import StoreAdapters

/// `opencat store extend-all apple`: Apple's mass extension of every subscriber of a product, or its status.
struct StoreExtendAllApple: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Extend every active subscriber of a product (or, with --status, read a request's progress)."
    )

    @OptionGroup var credentials: AppleOperationCredentials

    @Option(name: .customLong("product-id"), help: "The subscription product.")
    var productId: String

    @Option(name: .customLong("days"), help: "Whole days to add (1 to 90); not with --status.")
    var days: Int?

    @Option(
        name: .customLong("reason"),
        help: "0 undeclared, 1 customer satisfaction (default), 2 other, 3 service issue."
    )
    var reason: Int = 1

    @Option(
        name: .customLong("storefront"),
        help: "Only this storefront's subscribers (ISO 3166-1 alpha-3). Repeatable."
    )
    var storefronts: [String] = []

    @Option(name: .customLong("status"), help: "A request identifier whose progress to print instead.")
    var status: String?

    func validate() throws {
        guard (days == nil) != (status == nil) else { throw ValidationError("give exactly one of --days or --status") }
    }

    func run() async throws {
        let adapter = try credentials.apple()
        if let status {
            try await VerifyOutput.run {
                try await adapter.massExtensionStatus(productId: productId, requestIdentifier: status)
            }
            return
        }
        guard let reason = StoreExtension.Reason(rawValue: reason) else { throw ValidationError("--reason: 0 to 3") }
        let change = StoreExtension(days: days ?? 0, reason: reason)
        try await VerifyOutput.run {
            let id = try await adapter.extendAllSubscriptions(
                productId: productId,
                by: change,
                storefrontCountryCodes: storefronts
            )
            return ["requestIdentifier": id]
        }
    }
}

/// `opencat store test-notification apple`.
struct StoreTestNotificationApple: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract:
            "Ask the App Store to send a test notification (prints its token), or with --status read its delivery."
    )

    @OptionGroup var credentials: AppleOperationCredentials

    @Option(name: .customLong("status"), help: "A test notification token whose delivery to print instead.")
    var status: String?

    func run() async throws {
        let adapter = try credentials.apple()
        if let status {
            try await VerifyOutput.run { NotificationOutput(try await adapter.testNotificationStatus(token: status)) }
        } else {
            try await VerifyOutput.run { ["testNotificationToken": try await adapter.requestTestNotification()] }
        }
    }
}

/// `opencat store consumption apple`.
struct StoreConsumptionApple: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Send the consumption information Apple asked for about a refund request.",
        discussion: """
            Each --field is one of Apple's ConsumptionRequest fields with its value, e.g. --field customerConsented=true \
            --field deliveryStatus=DELIVERED --field sampleContentProvided=false. Prints {"sent": true} once Apple accepts it.
            """
    )

    @OptionGroup var credentials: AppleOperationCredentials

    @Option(name: .customLong("transaction-id"), help: "The transaction the refund request is about.")
    var transactionId: String

    @Option(name: .customLong("field"), help: "NAME=VALUE, one of Apple's ConsumptionRequest fields. Repeatable.")
    var fields: [String] = []

    func run() async throws {
        var values: [String: String] = [:]
        for field in fields {
            guard let equals = field.firstIndex(of: "="), equals != field.startIndex else {
                throw ValidationError("--field takes NAME=VALUE, not \(field)")
            }
            values[String(field[..<equals])] = String(field[field.index(after: equals)...])
        }
        let request: AppStore.ConsumptionRequest
        do { request = try AppStore.ConsumptionRequest(fields: values) } catch {
            throw ValidationError(error.message)
        }
        let adapter = try credentials.apple()
        try await VerifyOutput.run {
            try await adapter.sendConsumptionInformation(transactionId: transactionId, request)
            return ["sent": true]
        }
    }
}

/// `opencat store set-app-account-token apple`.
struct StoreSetAppAccountTokenApple: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Set the app account token of a purchase (to link it to an account after the fact)."
    )

    @OptionGroup var credentials: AppleOperationCredentials

    @Option(name: .customLong("original-transaction-id"), help: "The purchase's original transaction id.")
    var originalTransactionId: String

    @Option(name: .customLong("app-account-token"), help: "The account's UUID.")
    var appAccountToken: String

    func run() async throws {
        guard let uuid = UUID(uuidString: appAccountToken) else { throw ValidationError("--app-account-token: a UUID") }
        let adapter = try credentials.apple()
        try await VerifyOutput.run {
            try await adapter.setAppAccountToken(originalTransactionId: originalTransactionId, appAccountToken: uuid)
            return ["set": true]
        }
    }
}

/// `opencat store notification-history apple`.
struct StoreNotificationHistoryApple: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Print a page of the notifications the App Store sent or tried to send."
    )

    @OptionGroup var credentials: AppleOperationCredentials

    @Option(name: .customLong("start"), help: "From this ISO 8601 date.")
    var start: String

    @Option(name: .customLong("end"), help: "Until this ISO 8601 date.")
    var end: String

    @Option(name: .customLong("type"), help: "Only this notificationType.")
    var type: String?

    @Option(name: .customLong("transaction-id"), help: "Only this transaction's notifications.")
    var transactionId: String?

    @Flag(name: .customLong("only-failures"), help: "Only notifications that did not reach the server.")
    var onlyFailures = false

    @Option(name: .customLong("after"), help: "The cursor a previous page printed (nextCursor).")
    var after: String?

    func run() async throws {
        guard let startDate = try? Date(start, strategy: .iso8601), let endDate = try? Date(end, strategy: .iso8601)
        else { throw ValidationError("--start and --end take ISO 8601 dates, e.g. 2026-11-01T00:00:00Z") }
        let query = AppStore.NotificationHistoryRequest(
            startDate: startDate,
            endDate: endDate,
            notificationType: type,
            transactionId: transactionId,
            onlyFailures: onlyFailures ? true : nil
        )
        let adapter = try credentials.apple()
        try await VerifyOutput.run {
            let page = try await adapter.notificationHistory(query, paginationToken: after)
            return NotificationPageOutput(
                notifications: page.entries.map(NotificationOutput.init),
                nextCursor: page.nextCursor
            )
        }
    }
}

/// A notification as the CLI prints it: what Apple sent and how each delivery attempt went (its signed payload
/// verified, not printed).
struct NotificationOutput: Encodable {
    var notificationUUID: String
    var notificationType: String
    var subtype: String?
    var signedDate: Date?
    var sendAttempts: [AppStore.SendAttempt]

    init(_ entry: AppStore.NotificationHistoryEntry) {
        notificationUUID = entry.notificationUUID
        notificationType = entry.notificationType
        subtype = entry.subtype
        signedDate = entry.signedDate
        sendAttempts = entry.sendAttempts
    }

    init(_ status: AppStore.TestNotificationStatus) {
        notificationUUID = status.notificationUUID
        notificationType = status.notificationType
        sendAttempts = status.sendAttempts
    }
}

/// A page of notifications as the CLI prints it.
struct NotificationPageOutput: Encodable {
    var notifications: [NotificationOutput]
    var nextCursor: String?
}

/// `opencat store app-transaction apple`: Apple's Get App Transaction Info.
struct StoreAppTransactionApple: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Print the customer's app transaction (Get App Transaction Info), verified, as Apple signs it.",
        discussion: """
            --id takes any of the customer's transaction ids for the app, an original transaction id or the app \
            transaction id. Production is asked first, then the sandbox. Dates are milliseconds since 1970, as Apple \
            writes them.
            """
    )

    @OptionGroup var credentials: AppleOperationCredentials

    @Option(
        name: [.customLong("customer"), .customLong("id")],
        help: "Any transaction id of the customer for the app."
    )
    var id: String

    func run() async throws {
        let adapter = try credentials.apple()
        try await VerifyOutput.run { try await adapter.appTransactionInfo(transactionId: id) }
    }
}

/// `opencat store subscriptions apple`: Apple's Get All Subscription Statuses, filtered by `status`.
struct StoreSubscriptionsApple: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Print the customer's subscriptions (Get All Subscription Statuses), each verified and mapped."
    )

    /// The names `--status` takes, as Apple numbers them (1 to 5).
    static let statuses: [String: AppStore.SubscriptionStatus] = [
        "active": .active, "expired": .expired, "billing-retry": .billingRetry, "grace-period": .gracePeriod,
        "revoked": .revoked,
    ]

    @OptionGroup var credentials: AppleOperationCredentials

    @Option(
        name: [.customLong("customer"), .customLong("id")],
        help: "Any transaction id of the customer for the app."
    )
    var id: String

    @Option(
        name: .customLong("status"),
        help: "Only subscriptions in this status: active, expired, billing-retry, grace-period, revoked. Repeatable."
    )
    var status: [String] = []

    func run() async throws {
        var filter: Set<AppStore.SubscriptionStatus> = []
        for name in status {
            guard let value = Self.statuses[name] else {
                throw ValidationError("--status: one of active, expired, billing-retry, grace-period, revoked")
            }
            filter.insert(value)
        }
        let adapter = try credentials.apple()
        try await VerifyOutput.run { try await adapter.subscriptionStatuses(transactionId: id, status: filter) }
    }
}
