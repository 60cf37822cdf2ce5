import Foundation
import MockStores
import MockStoresServer
import OpenCatConformance
import OpenCatCore
import OpenCatTesting
import Testing
import _CryptoExtras

/// `opencat store <verb> <store>` for the stores beyond Stripe, each against a committed operations cassette served
/// by MockStores: the command sends exactly the cassette's requests (none unmatched) with verify's credential flags
/// and prints the purchase as the store reports it afterwards.
struct StoreOperationsCLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Serves one committed cassette (`Fixtures/<section>/<cassette>`) with fresh conformance credentials and runs
    /// `arguments(credentials, base)`.
    static func run(
        _ cassette: String,
        in section: String = "operations",
        _ arguments: (ConformanceCredentials, ScratchFolder, String) throws -> [String]
    ) async throws -> (OpenCatCLI.Result, [String]) {
        let credentials = try ConformanceCredentials()
        let file = Self.fixtures.appendingPathComponent(section).appendingPathComponent(cassette)
        let loaded = try credentials.fixtureLoader.load(file)
        let folder = try ScratchFolder()
        return try await MockStoreServer.withRunningServer(
            cassettes: [loaded],
            credentials: credentials.mockCredentials(tokenPath: "/token")
        ) { server in
            let result = try await OpenCatCLI.run(try arguments(credentials, folder, server.baseURL.absoluteString))
            return (result, server.unmatchedRequests.map(\.description))
        }
    }

    /// A Google service account JSON key file's contents for the run's key, its token endpoint the mock's.
    static func serviceAccount(_ credentials: ConformanceCredentials, tokenURI: String) throws -> Data {
        try JSONSerialization.data(withJSONObject: [
            "type": "service_account", "project_id": "opencat-cli", "private_key_id": "cli",
            "private_key": credentials.googleKey.pemRepresentation, "client_email": credentials.googleClientEmail,
            "token_uri": tokenURI,
        ])
    }

    @Test func consumeGooglePrintsTheConsumedPurchase() async throws {
        let (result, unmatched) = try await Self.run("google/consume-success.json") { credentials, folder, base in
            let account = try StoreOperationsCLITests.serviceAccount(credentials, tokenURI: base + "/token")
            return [
                "store", "consume", "google", "--package", "dev.opencat.auralogic",
                "--service-account", try folder.write("account.json", account),
                "--token-file", try folder.write("token", Data("opencat-test-token-consume-0101".utf8)),
                "--product-id", "dev.opencat.auralogic.gems500", "--base-url", base, "--token-url", base + "/token",
            ]
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""transactionId" : "GPA.3301-0000-0000-00101""#))
        #expect(result.standardOutput.contains(#""finalizedByAdapter" : true"#))
        #expect(!result.standardOutput.contains("opencat-test-token-consume-0101"))
    }

    @Test func cancelSteamPrintsTheAgreementThatNoLongerRenews() async throws {
        let (result, unmatched) = try await Self.run("steam/cancel-success.json") { credentials, folder, base in
            [
                "store", "cancel", "steam", "--app-id", "480",
                "--key-file", try folder.write("key", Data(credentials.steamPublisherKey.revealed.utf8)),
                "--subscription", "76561197960287930:4400000000000001", "--at-period-end", "--base-url", base,
            ]
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""willRenew" : false"#))
        #expect(result.standardOutput.contains(#""storeStatus" : "Canceled""#))
    }

    @Test func appTransactionApplePrintsTheVerifiedAppTransaction() async throws {
        let (result, unmatched) = try await Self.run("apple/app-transaction-success.json") {
            credentials,
            folder,
            base in
            [
                "store", "app-transaction", "apple", "--bundle-id", "dev.opencat.auralogic", "--issuer-id",
                credentials.appleIssuerId, "--key-id", credentials.appleKeyId, "--key-file",
                try folder.write("key.p8", Data(credentials.appleAPIKey.pemRepresentation.utf8)), "--root",
                try folder.write("root.der", credentials.appleCA.rootCertificateDER), "--id", "2000000000000011",
                "--base-url", base + "/production", "--sandbox-base-url", base + "/sandbox",
            ]
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""appTransactionId" : "704289572311221111""#))
        #expect(result.standardOutput.contains(#""originalApplicationVersion" : "1.0""#))
        #expect(result.standardOutput.contains(#""receiptType" : "Production""#))
    }

    @Test func suspendStripePausesTheSubscriptionsCollection() async throws {
        let (result, unmatched) = try await Self.run("stripe/suspend-success.json") { credentials, folder, base in
            [
                "store", "suspend", "stripe", "--secret-key-file",
                try folder.write("key", Data(credentials.stripeSecretKey.revealed.utf8)),
                "--subscription", "sub_OpenCatActive02", "--base-url", base,
            ]
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""storeStatus" : "active/paused""#))
        #expect(result.standardOutput.contains(#""state" : "expired""#))
    }

    @Test func extendSteamMovesTheAgreementsNextPayment() async throws {
        let (result, unmatched) = try await Self.run("steam/extend-success.json") { credentials, folder, base in
            [
                "store", "extend", "steam", "--app-id", "480",
                "--key-file", try folder.write("key", Data(credentials.steamPublisherKey.revealed.utf8)),
                "--id", "76561197960287930:4400000000000001", "--days", "7", "--base-url", base,
            ]
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""expirationDate" : "2026-12-19T00:00:00.000Z""#))
        #expect(result.standardOutput.contains(#""willRenew" : true"#))
    }

    @Test(arguments: ["0", "3601", "thirty", ""])
    func anUnusableTimeoutIsAUsageErrorBeforeAnyRequest(_ timeout: String) async throws {
        let credentials = try ConformanceCredentials()
        let folder = try ScratchFolder()
        let result = try await OpenCatCLI.run(
            [
                "store", "cancel", "steam", "--app-id", "480",
                "--key-file", try folder.write("key", Data(credentials.steamPublisherKey.revealed.utf8)),
                "--subscription", "76561197960287930:4400000000000001", "--base-url", "http://127.0.0.1:9",
            ],
            environment: ["OPENCAT_HTTP_TIMEOUT": timeout]
        )
        #expect(result.status == 64 && !result.trapped, "\(result.status) \(result.standardError)")
        #expect(result.standardError.contains("OPENCAT_HTTP_TIMEOUT must be a whole number of seconds in 1...3600"))
    }

    @Test func aPartialPayPalRefundPrintsTheRefundedAmount() async throws {
        let (result, unmatched) = try await Self.run("paypal/refund-success.json") { credentials, folder, base in
            [
                "store", "refund", "paypal", "--client-id", credentials.payPalClientId,
                "--client-secret-file", try folder.write("secret", Data(credentials.payPalClientSecret.revealed.utf8)),
                "--payee-merchant-id", "C7CYMKZDG8D6E", "--price", "gems_500=5.00:USD", "--refund-id",
                "CAP5O190127TN3670", "--amount", "2.50",
                "--currency", "USD", "--idempotency-key", "opencat-refund-CAP5O190127TN3670-2.50", "--base-url", base,
            ]
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""state" : "refunded""#))
        #expect(result.standardOutput.contains(#""amount" : "2.5""#) || result.standardOutput.contains("2.50"))
    }

    @Test func lookUpAGoogleOrderPrintsItsPurchase() async throws {
        let (result, unmatched) = try await Self.run("google/lookup-order-success.json") { credentials, folder, base in
            let account = try StoreOperationsCLITests.serviceAccount(credentials, tokenURI: base + "/token")
            return [
                "store", "lookup-order", "google", "--package", "dev.opencat.auralogic",
                "--service-account", try folder.write("account.json", account), "--order-id",
                "GPA.3301-0000-0000-00201", "--base-url", base, "--token-url", base + "/token",
            ]
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""transactionId" : "GPA.3301-0000-0000-00201""#))
        #expect(result.standardOutput.contains(#""storeStatus" : "PROCESSED""#))
    }

    @Test func finishAnAppleTransactionPrintsItFinalized() async throws {
        let (result, unmatched) = try await Self.run("apple/acknowledge-success.json") { credentials, folder, base in
            [
                "store", "acknowledge", "apple", "--bundle-id", "dev.opencat.auralogic", "--issuer-id",
                credentials.appleIssuerId, "--key-id", credentials.appleKeyId, "--key-file",
                try folder.write("key.p8", Data(credentials.appleAPIKey.pemRepresentation.utf8)), "--root",
                try folder.write("root.der", credentials.appleCA.rootCertificateDER), "--id", "2000000000000011",
                "--product-id", "dev.opencat.auralogic.gems500", "--base-url", base + "/production",
                "--sandbox-base-url", base + "/sandbox",
            ]
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""finalizedByAdapter" : true"#))
        #expect(result.standardOutput.contains(#""transactionId" : "2000000000000011""#))
    }

    @Test func resumePayPalActivatesTheSubscription() async throws {
        let (result, unmatched) = try await Self.run("paypal/resume-success.json") { credentials, folder, base in
            [
                "store", "resume", "paypal", "--client-id", credentials.payPalClientId,
                "--client-secret-file", try folder.write("secret", Data(credentials.payPalClientSecret.revealed.utf8)),
                "--payee-merchant-id", "C7CYMKZDG8D6E", "--price", "gems_500=5.00:USD", "--subscription-plan",
                "P-5ML4271244454362WXNWU5NQ=pro_monthly", "--subscription", "I-BW452GLLEP41", "--reason",
                "Customer came back", "--base-url", base,
            ]
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""state" : "active""#))
        #expect(result.standardOutput.contains(#""willRenew" : true"#))
    }

    @Test func resumeStripeStartsANewPeriod() async throws {
        let (result, unmatched) = try await Self.run("stripe/resume-success.json") { credentials, folder, base in
            [
                "store", "resume", "stripe", "--secret-key-file",
                try folder.write("key", Data(credentials.stripeSecretKey.revealed.utf8)),
                "--subscription", "sub_OpenCatPaused01", "--base-url", base,
            ]
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""state" : "active""#))
        #expect(result.standardOutput.contains("2026-12-21T12:00:00"))
    }

    @Test func anOperationTheStoreLacksExitsTwoWithItsReason() async throws {
        // Google Play cancels at the end of the period only: asking for "now" is refused before any request.
        let (result, _) = try await Self.run("google/cancel-success.json") { credentials, folder, base in
            let account = try StoreOperationsCLITests.serviceAccount(credentials, tokenURI: base + "/token")
            return [
                "store", "cancel", "google", "--package", "dev.opencat.auralogic",
                "--service-account", try folder.write("account.json", account),
                "--token-file", try folder.write("token", Data("opencat-test-token".utf8)), "--base-url", base,
            ]
        }
        #expect(result.status == 2)
        #expect(result.standardError.contains("unsupported"))
    }

    @Test func usageErrorsExit64() async throws {
        let missing = try await OpenCatCLI.run(["store", "extend", "apple", "--days", "7"])
        #expect(missing.status == 64)
        let unknown = try await OpenCatCLI.run(["store", "consume", "stripe"])
        #expect(unknown.status == 64)
    }
}
