import Crypto
import Foundation
import OpenCatConformance
import OpenCatCore
import OpenCatTesting
import Testing
import _CryptoExtras

/// `opencat store refund-status|refunds|cancel-refund|subscriptions|invoices|lookup-order`, each against the operations
/// section's committed cassette: the requests the cassette records are the ones sent, and the store's answer is printed.
struct StoreRefundReadCLITests {
    static func stripe(_ verb: String, _ rest: [String]) -> (ConformanceCredentials, ScratchFolder, String) throws
        -> [String]
    {
        { credentials, folder, base in
            [
                "store", verb, "stripe", "--secret-key-file",
                try folder.write("key", Data(credentials.stripeSecretKey.revealed.utf8)), "--base-url", base,
            ] + rest
        }
    }

    @Test func refundStatusStripePrintsTheRefund() async throws {
        let (result, unmatched) = try await StoreOperationsCLITests.run(
            "stripe/refund-status-success.json",
            Self.stripe("refund-status", ["--refund-id", "re_3OpenCatRefund01"])
        )
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""status" : "succeeded""#))
        #expect(result.standardOutput.contains(#""transactionId" : "pi_3OpenCatPaid0001""#))
        #expect(result.standardOutput.contains(#""amount" : "5.00""#))
    }

    @Test func refundStatusPayPalPrintsTheRefundNormalized() async throws {
        let (result, unmatched) = try await StoreOperationsCLITests.run("paypal/refund-status-success.json") {
            credentials,
            folder,
            base in
            [
                "store", "refund-status", "paypal", "--client-id", credentials.payPalClientId,
                "--client-secret-file", try folder.write("secret", Data(credentials.payPalClientSecret.revealed.utf8)),
                "--payee-merchant-id", "C7CYMKZDG8D6E", "--refund-id", "1JU08902781691411", "--base-url", base,
            ]
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""status" : "succeeded""#))
        #expect(result.standardOutput.contains(#""storeStatus" : "COMPLETED""#))
    }

    @Test func refundsStripePrintsAPageWithItsCursor() async throws {
        let (result, unmatched) = try await StoreOperationsCLITests.run(
            "stripe/refunds-success.json",
            Self.stripe("refunds", ["--payment", "pi_3OpenCatPaid0002", "--limit", "2"])
        )
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""nextCursor" : "re_3OpenCatRefund02""#))
        #expect(result.standardOutput.contains(#""status" : "requires_action""#) == false)
        #expect(result.standardOutput.contains(#""status" : "pending""#))
    }

    @Test func cancelRefundStripeThatIsCancelledAlreadyExitsTwoWithTheReason() async throws {
        let (result, unmatched) = try await StoreOperationsCLITests.run(
            "stripe/cancel-refund-already-done.json",
            Self.stripe("cancel-refund", ["--refund-id", "re_3OpenCatRefund05"])
        )
        #expect(result.status == 2, "\(result.standardOutput)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardError.contains("alreadyDone") && result.standardError.contains("canceled"))
    }

    @Test func subscriptionsAndInvoicesStripePrintTheCustomersHistory() async throws {
        let (subscriptions, unmatchedSubscriptions) = try await StoreOperationsCLITests.run(
            "stripe/subscriptions-success.json",
            Self.stripe("subscriptions", ["--customer", "cus_OpenCat001"])
        )
        #expect(subscriptions.status == 0, "\(subscriptions.standardError)")
        #expect(unmatchedSubscriptions.isEmpty, "\(unmatchedSubscriptions)")
        #expect(subscriptions.standardOutput.contains(#""originalTransactionId" : "sub_OpenCatHistory02""#))
        #expect(subscriptions.standardOutput.contains(#""originalTransactionId" : "sub_OpenCatHistory01""#))
        let (invoices, unmatchedInvoices) = try await StoreOperationsCLITests.run(
            "stripe/invoices-success.json",
            Self.stripe("invoices", ["--customer", "cus_OpenCat001"])
        )
        #expect(invoices.status == 0, "\(invoices.standardError)")
        #expect(unmatchedInvoices.isEmpty, "\(unmatchedInvoices)")
        #expect(invoices.standardOutput.contains("in_OpenCatInvoice02"))
        #expect(invoices.standardOutput.contains("subscription_cycle"))
    }

    @Test func subscriptionsAppleFiltersByStatus() async throws {
        let (result, unmatched) = try await StoreOperationsCLITests.run(
            "apple/subscriptions-rate-limited-then-success.json"
        ) { credentials, folder, base in
            [
                "store", "subscriptions", "apple", "--bundle-id", "dev.opencat.auralogic", "--issuer-id",
                credentials.appleIssuerId, "--key-id", credentials.appleKeyId, "--key-file",
                try folder.write("key.p8", Data(credentials.appleAPIKey.pemRepresentation.utf8)), "--root",
                try folder.write("root.der", credentials.appleCA.rootCertificateDER), "--customer", "2000000000000021",
                "--status", "active", "--status", "grace-period", "--base-url", base + "/production",
                "--sandbox-base-url", base + "/sandbox",
            ]
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""productId" : "dev.opencat.auralogic.pro.monthly""#))
    }

    @Test func lookupOrderGoogleWithSeveralIdsUsesBatchGet() async throws {
        let (result, unmatched) = try await StoreOperationsCLITests.run("google/lookup-orders-success.json") {
            credentials,
            folder,
            base in
            let account = try StoreOperationsCLITests.serviceAccount(credentials, tokenURI: base + "/token")
            return [
                "store", "lookup-order", "google", "--package", "dev.opencat.auralogic",
                "--service-account", try folder.write("account.json", account), "--order-id",
                "GPA.3301-0000-0000-00201", "--order-id", "GPA.3301-0000-0000-00202", "--base-url", base,
                "--token-url", base + "/token",
            ]
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""state" : "refunded""#))
    }

    @Test func productPurchaseGoogleReadsTheTokenAloneAndNeverPrintsIt() async throws {
        let (result, unmatched) = try await StoreOperationsCLITests.run("google/product-purchase-success.json") {
            credentials,
            folder,
            base in
            let account = try StoreOperationsCLITests.serviceAccount(credentials, tokenURI: base + "/token")
            return [
                "store", "product-purchase", "google", "--package", "dev.opencat.auralogic",
                "--service-account", try folder.write("account.json", account),
                "--token-file", try folder.write("token", Data("opencat-test-token-v2-0301".utf8)),
                "--base-url", base, "--token-url", base + "/token",
            ]
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""productId" : "dev.opencat.auralogic.gems500""#))
        #expect(!result.standardOutput.contains("opencat-test-token-v2-0301"))
    }
}
