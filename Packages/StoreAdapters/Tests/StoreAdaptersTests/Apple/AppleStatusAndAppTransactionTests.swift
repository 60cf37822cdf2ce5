import Crypto
import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import StoreAdapters
import Testing

/// Get All Subscription Statuses filtered by `status`, and Get App Transaction Info: the request Apple's library
/// sends, the signed answers verified and checked.
struct AppleStatusAndAppTransactionTests {
    static let chain = try! TestAppleChain()
    let transport = ScriptedTransport()
    let clock = ManualClock(
        start: AppleTestValues.signedDate.addingTimeInterval(60),
        autoAdvance: true,
        holdsDuringExternalWork: true
    )

    private func adapter() -> AppleStoreAdapter {
        AppleStoreAdapter(
            configuration: .init(
                bundleId: AppleTestValues.bundleId,
                rootCertificates: [Self.chain.root],
                environment: nil,
                apiCredentials: .init(
                    issuerId: "57246542-96fe-1a63-e053-0824d011072a",
                    keyId: "2X9R4HXF34",
                    privateKey: Secret(P256.Signing.PrivateKey())
                ),
                productionBaseURL: URL(string: "https://prod.apple.test/prod")!,
                sandboxBaseURL: URL(string: "https://sandbox.apple.test/sandbox")!,
                httpClient: .scripted(transport, clock: clock)
            )
        )
    }

    private func statusItem(_ status: Int, transactionId: String, original: String) throws -> String {
        var transaction = AppleTestValues.transaction(transactionId: transactionId)
        transaction.originalTransactionId = original
        let renewal = AppleTestValues.renewalInfo(originalTransactionId: original)
        return """
            {"status":\(status),"originalTransactionId":"\(original)",
             "signedTransactionInfo":"\(try Self.chain.sign(transaction))",
             "signedRenewalInfo":"\(try Self.chain.sign(renewal))"}
            """
    }

    @Test func statusesAreFilteredWithApplesRepeatedStatusQueryAndEachIsMapped() async throws {
        let items = [
            try statusItem(1, transactionId: "2000000000000101", original: "2000000000000100"),
            try statusItem(3, transactionId: "2000000000000201", original: "2000000000000200"),
        ]
        transport.on(
            .get,
            "/prod/inApps/v1/subscriptions/2000000000000101",
            json: #"{"environment":"Production","bundleId":"\#(AppleTestValues.bundleId)","data":[{"#
                + #""subscriptionGroupIdentifier":"21000000","lastTransactions":[\#(items.joined(separator: ","))]}]}"#
        )
        let purchases = try await adapter().subscriptionStatuses(
            transactionId: "2000000000000101",
            status: [.billingRetry, .active]
        )
        #expect(transport.requests.map(\.path) == ["/prod/inApps/v1/subscriptions/2000000000000101?status=1&status=3"])
        #expect(purchases.map(\.state) == [.active, .billingRetry])
        #expect(purchases.map(\.storeStatus) == ["status=1", "status=3"])
    }

    @Test func anAppTransactionUnknownInProductionIsReadFromTheSandboxAndVerified() async throws {
        let app = JWSAppTransactionDecodedPayload(
            rawReceiptType: "Sandbox",
            bundleId: AppleTestValues.bundleId,
            applicationVersion: "2.4.0",
            receiptCreationDate: AppleTestValues.signedDate,
            originalPurchaseDate: AppleTestValues.signedDate.addingTimeInterval(-86_400),
            originalApplicationVersion: "1.0",
            appTransactionId: "704289572311221111",
            originalPlatform: "iOS"
        )
        let path = "/inApps/v1/transactions/appTransactions/2000000000000011"
        transport.on(
            .get,
            "/prod" + path,
            status: 404,
            json: #"{"errorCode":4040019,"errorMessage":"No AppTransaction exists for the customer."}"#
        )
        transport.on(.get, "/sandbox" + path, json: #"{"signedAppTransactionInfo":"\#(try Self.chain.sign(app))"}"#)
        let read = try await adapter().appTransactionInfo(transactionId: "2000000000000011")
        #expect(read.appTransactionId == "704289572311221111" && read.environment == .sandbox)
        #expect(read.originalApplicationVersion == "1.0" && read.signedDate == AppleTestValues.signedDate)
        #expect(transport.requests.map(\.path) == ["/prod" + path, "/sandbox" + path])
    }

    @Test func anAppTransactionForAnotherAppIsWrongApplication() async throws {
        let app = JWSAppTransactionDecodedPayload(
            rawReceiptType: "Production",
            bundleId: "com.example.other",
            receiptCreationDate: AppleTestValues.signedDate,
            appTransactionId: "704289572311221111"
        )
        transport.on(
            .get,
            "/prod/inApps/v1/transactions/appTransactions/2000000000000011",
            json: #"{"signedAppTransactionInfo":"\#(try Self.chain.sign(app))"}"#
        )
        let error = try await #require(throws: StoreAdapterError.self) {
            try await adapter().appTransactionInfo(transactionId: "2000000000000011")
        }
        #expect(error.code == .wrongApplication)
    }
}
