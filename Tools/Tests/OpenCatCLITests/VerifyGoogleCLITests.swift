import Foundation
import MockStores
import MockStoresServer
import OpenCatConformance
import Testing
import _CryptoExtras

/// `opencat verify google` without `--product-id`, as its help promises: the token is read with
/// `purchases.productsv2.getproductpurchasev2`, which names the product, and acknowledged for that product.
struct VerifyGoogleCLITests {
    static let path = "/androidpublisher/v3/applications/dev.opencat.auralogic/purchases"
    static let token = "opencat-test-token-productsv2-0101"

    /// The exchange Google describes: the v2 read (a pending acknowledgement), then products.acknowledge.
    static func cassette() -> String {
        """
        {"format": "opencat-cassette/1", "store": "google", "scenario": "productsv2",
         "input": {"kind": "googleProductPurchaseToken", "token": "\(token)"},
         "config": {"packageName": "dev.opencat.auralogic", "tokenPath": "/token", "clientEmail": "{{google.clientEmail}}"},
         "interactions": [
          {"request": {"method": "GET", "path": "\(path)/productsv2/tokens/\(token)"},
           "response": {"status": 200, "headers": {"Content-Type": "application/json"},
            "json": {"kind": "androidpublisher#productPurchaseV2",
             "productLineItem": [{"productId": "dev.opencat.auralogic.gems500",
              "productOfferDetails": {"quantity": 2, "refundableQuantity": 2,
               "consumptionState": "CONSUMPTION_STATE_YET_TO_BE_CONSUMED", "purchaseOptionId": "default"}}],
             "purchaseStateContext": {"purchaseState": "PURCHASED"}, "orderId": "GPA.3301-0000-0000-00777",
             "obfuscatedExternalAccountId": "player-42", "regionCode": "US",
             "purchaseCompletionTime": "2026-11-21T12:00:00Z", "acknowledgementState": "ACKNOWLEDGEMENT_STATE_PENDING"}}},
          {"request": {"method": "POST",
            "path": "\(path)/products/dev.opencat.auralogic.gems500/tokens/\(token):acknowledge"},
           "response": {"status": 200}}],
         "expect": {"outcome": "verified", "state": "active"}}
        """
    }

    @Test func aProductTokenWithoutItsProductIdIsReadWithProductsV2AndAcknowledged() async throws {
        let credentials = try ConformanceCredentials()
        let folder = try ScratchFolder()
        let file = URL(fileURLWithPath: try folder.write("productsv2.json", Data(Self.cassette().utf8)))
        let loaded = try credentials.fixtureLoader.load(file)
        let (result, unmatched) = try await MockStoreServer.withRunningServer(
            cassettes: [loaded],
            credentials: credentials.mockCredentials(tokenPath: "/token")
        ) { server in
            let base = server.baseURL.absoluteString
            let account = try StoreOperationsCLITests.serviceAccount(credentials, tokenURI: base + "/token")
            let result = try await OpenCatCLI.run([
                "verify", "google", "--package", "dev.opencat.auralogic",
                "--service-account", try folder.write("account.json", account),
                "--token-file", try folder.write("token", Data(Self.token.utf8)),
                "--base-url", base, "--token-url", base + "/token",
            ])
            return (result, server.unmatchedRequests.map(\.description))
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""productId" : "dev.opencat.auralogic.gems500""#))
        #expect(result.standardOutput.contains(#""quantity" : 2"#))
        #expect(result.standardOutput.contains(#""finalizedByAdapter" : true"#))
        #expect(!result.standardOutput.contains(Self.token))
    }
}
