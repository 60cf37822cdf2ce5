import Foundation
import MockStores
import MockStoresServer
import OpenCatCore
import Testing

/// `opencat store refund stripe` on a PaymentIntent MockStores serves, then `opencat verify stripe` on it: the
/// refund is asked for once, and the payment then reads as refunded.
struct StoreCommandCLITests {
    static let key = "sk_test_opencat_store_cli_0001"
    static let intent = "pi_3OpenCatStoreCLI01"

    static func paymentIntent(refunded: Bool) -> String {
        """
        {"id": "\(intent)", "object": "payment_intent", "amount": 500, "amount_received": 500, "currency": "usd",
         "created": 1763800000, "livemode": true, "status": "succeeded",
         "metadata": {"product_id": "gems_500", "app_user_id": "player-42"},
         "latest_charge": {"id": "ch_3OpenCatStoreCLI01", "object": "charge", "amount": 500,
          "amount_captured": 500, "amount_refunded": \(refunded ? 500 : 0), "captured": true, "currency": "usd",
          "paid": true, "refunded": \(refunded), "status": "succeeded", "payment_intent": "\(intent)"}}
        """
    }

    static func cassette(alreadyRefunded: Bool) throws -> Cassette {
        let refund =
            alreadyRefunded
            ? """
            {"request": {"method": "POST", "path": "/v1/refunds"},
             "response": {"status": 400, "json": {"error": {"type": "invalid_request_error",
              "code": "charge_already_refunded", "message": "Charge ch_3OpenCatStoreCLI01 has already been refunded."}}}}
            """
            : """
            {"request": {"method": "POST", "path": "/v1/refunds"},
             "response": {"status": 200, "json": {"id": "re_3OpenCatStoreCLI01", "object": "refund", "amount": 500,
              "currency": "usd", "payment_intent": "\(intent)", "status": "succeeded"}}}
            """
        let json = """
            {"format": "opencat-cassette/1", "store": "stripe", "scenario": "store-refund",
             "input": {"kind": "stripePaymentIntent", "token": "\(intent)"},
             "interactions": [\(refund),
              {"request": {"method": "GET", "path": "/v1/payment_intents/\(intent)"}, "times": 2,
               "response": {"status": 200, "json": \(paymentIntent(refunded: true))}}],
             "expect": {"outcome": "verified", "state": "refunded"}}
            """
        return try Cassette.decode(Data(json.utf8), file: "store-refund.json")
    }

    static var credentials: MockCredentials {
        var credentials = MockCredentials()
        credentials.stripeSecretKey = Secret(key)
        return credentials
    }

    @Test func aRefundThenAVerificationPrintsRefunded() async throws {
        let folder = try ScratchFolder()
        let keyFile = try folder.write("stripe-key", Data(Self.key.utf8))
        try await MockStoreServer.withRunningServer(
            cassettes: [try Self.cassette(alreadyRefunded: false)],
            credentials: Self.credentials
        ) { server in
            let base = server.baseURL.absoluteString
            let refund = try await OpenCatCLI.run(
                [
                    "store", "refund", "stripe", "--secret-key-file", keyFile, "--payment-intent", Self.intent,
                    "--base-url", base,
                ]
            )
            #expect(refund.status == 0, "\(refund.standardError)")
            #expect(refund.standardOutput.contains("\"state\" : \"refunded\""))
            let verify = try await OpenCatCLI.run(
                ["verify", "stripe", "--secret-key-file", keyFile, "--payment-intent", Self.intent, "--base-url", base]
            )
            #expect(verify.status == 0, "\(verify.standardError)")
            #expect(verify.standardOutput.contains("\"state\" : \"refunded\""))
            let refunds = server.receivedRequests.filter { $0.method == "POST" }
            #expect(refunds.count == 1)
            let form = String(decoding: refunds.first?.body ?? Data(), as: UTF8.self)
            #expect(form == "payment_intent=\(Self.intent)")
            #expect(server.unmatchedRequests.isEmpty)
            #expect(!refund.standardOutput.contains(Self.key) && !refund.standardError.contains(Self.key))
        }
    }

    @Test func refundingARefundedPaymentExitsTwoWithAlreadyDone() async throws {
        let folder = try ScratchFolder()
        let keyFile = try folder.write("stripe-key", Data(Self.key.utf8))
        try await MockStoreServer.withRunningServer(
            cassettes: [try Self.cassette(alreadyRefunded: true)],
            credentials: Self.credentials
        ) { server in
            let refund = try await OpenCatCLI.run(
                [
                    "store", "refund", "stripe", "--secret-key-file", keyFile, "--payment-intent", Self.intent,
                    "--base-url", server.baseURL.absoluteString,
                ]
            )
            #expect(refund.status == 2)
            #expect(refund.standardError.contains("alreadyDone"))
        }
    }

    @Test func aPartialAmountWithoutACurrencyIsAUsageError() async throws {
        let refund = try await OpenCatCLI.run(
            [
                "store", "refund", "stripe", "--secret-key-file", "/nonexistent", "--payment-intent", Self.intent,
                "--amount", "1.00",
            ]
        )
        #expect(refund.status == 64)
    }
}
