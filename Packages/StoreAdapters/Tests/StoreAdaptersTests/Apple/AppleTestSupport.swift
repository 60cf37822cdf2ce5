import Foundation
import Logging
import OpenCatCore
import OpenCatTesting
import StoreAdapters
import Synchronization
import Testing

/// Shared values for the App Store tests.
enum AppleTestValues {
    static let bundleId = "dev.opencat.tests"
    /// 2023-11-14T22:13:20Z: the signing date of most test payloads and the ManualClock's default start.
    static let signedDate = Date(timeIntervalSince1970: 1_700_000_000)
    static let appAccountToken = "7E3FB20B-4CDB-47CC-936D-99D65F608138"

    /// A production auto-renewable subscription transaction, renewing a day after `signedDate`.
    static func transaction(
        transactionId: String = "2000000123456789",
        productId: String = "dev.opencat.pro.monthly",
        bundleId: String = AppleTestValues.bundleId,
        environment: String = "Production",
        signedDate: Date = AppleTestValues.signedDate,
        expiresDate: Date? = AppleTestValues.signedDate.addingTimeInterval(86_400),
        revocationDate: Date? = nil
    ) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            originalTransactionId: "2000000000000001",
            transactionId: transactionId,
            webOrderLineItemId: "2000000000000042",
            bundleId: bundleId,
            productId: productId,
            subscriptionGroupIdentifier: "21000000",
            purchaseDate: signedDate.addingTimeInterval(-3_600),
            originalPurchaseDate: signedDate.addingTimeInterval(-86_400 * 30),
            expiresDate: expiresDate,
            quantity: 1,
            rawType: "Auto-Renewable Subscription",
            appAccountToken: appAccountToken,
            rawInAppOwnershipType: "PURCHASED",
            signedDate: signedDate,
            revocationDate: revocationDate,
            rawEnvironment: environment,
            storefront: "USA",
            storefrontId: "143441",
            rawTransactionReason: "PURCHASE",
            currency: "USD",
            price: 9990
        )
    }

    /// Renewal info for the subscription of ``transaction(…)``.
    static func renewalInfo(
        environment: String = "Production",
        autoRenewStatus: Int32 = 1,
        isInBillingRetryPeriod: Bool? = false,
        gracePeriodExpiresDate: Date? = nil,
        originalTransactionId: String = "2000000000000001"
    ) -> JWSRenewalInfoDecodedPayload {
        JWSRenewalInfoDecodedPayload(
            originalTransactionId: originalTransactionId,
            autoRenewProductId: "dev.opencat.pro.monthly",
            productId: "dev.opencat.pro.monthly",
            rawAutoRenewStatus: autoRenewStatus,
            isInBillingRetryPeriod: isInBillingRetryPeriod,
            gracePeriodExpiresDate: gracePeriodExpiresDate,
            signedDate: signedDate,
            rawEnvironment: environment
        )
    }
}

/// Runs `body` and returns the ``StoreAdapterError`` it throws (recording an issue if it throws something else
/// or nothing).
func appleStoreError(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> some Any
) async -> StoreAdapterError? {
    do {
        _ = try await body()
        Issue.record("expected a StoreAdapterError, got a result", sourceLocation: sourceLocation)
        return nil
    } catch let error as StoreAdapterError {
        return error
    } catch {
        Issue.record("expected a StoreAdapterError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A log handler that keeps every message, for asserting on warnings and on the absence of secrets.
final class AppleRecordingLogHandler: LogHandler, Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: String
    }

    private let entries = Mutex<[Entry]>([])
    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }
    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        entries.withLock {
            $0.append(Entry(level: event.level, message: "\(event.message)", metadata: "\(event.metadata ?? [:])"))
        }
    }

    var recorded: [Entry] { entries.withLock { $0 } }

    func logger() -> Logger { Logger(label: "test.apple", factory: { _ in self }) }
}
