import Foundation
import HTTPTypes
import OpenCatCore
import OpenCatTesting
import Testing

@testable import StoreAdapters

/// The new endpoints share the existing paths' transport behaviour: 429 honouring Retry-After then success, 5xx
/// until the retries are spent (`storeUnavailable`), no answer (`timeout`), and the store's own 404.
struct NewEndpointTransportTests {
    static let subscription = """
        {"id":"sub_1","object":"subscription","status":"active","livemode":true,"created":1700000000,
         "current_period_end":1702592000,"metadata":{"product_id":"pro"},"items":{"data":[]}}
        """

    func stripe(_ transport: ScriptedTransport) -> StripeAdapter {
        StripeAdapter(
            configuration: .init(
                secretKey: "sk_test_x",
                baseURL: URL(string: "http://127.0.0.1:8080/stripe")!,
                httpClient: .scripted(transport, maxAttempts: 3)
            )
        )
    }

    let subscriptionProof = PurchaseProof(store: .stripe, kind: .stripeSubscription, token: "sub_1", productId: "pro")
    let path = "/stripe/v1/subscriptions/sub_1"

    @Test func stripeSubscriptionsRetryA429AndSucceed() async throws {
        let transport = ScriptedTransport()
        transport.on(
            .get,
            path,
            times: 1,
            status: 429,
            headers: ["Retry-After": "1"],
            json: #"{"error":{"type":"rate_limit_error","code":"rate_limit"}}"#
        )
        transport.on(.get, path, json: Self.subscription)
        #expect(try await stripe(transport).verify(subscriptionProof).state == .active)
        #expect(transport.requests.count == 2)
    }

    @Test func stripeSubscriptionsReportServerErrorsTimeoutsAndUnknownIds() async throws {
        let down = ScriptedTransport()
        down.on(.get, path, status: 503, json: #"{"error":{"type":"api_error"}}"#)
        await #expect { try await stripe(down).verify(subscriptionProof) } throws: {
            ($0 as? StoreAdapterError)?.code == .storeUnavailable
        }
        #expect(down.requests.count == 3)
        let silent = ScriptedTransport()
        silent.on(.get, path, reply: .transportError(.timeout))
        await #expect { try await stripe(silent).verify(subscriptionProof) } throws: {
            ($0 as? StoreAdapterError)?.code == .timeout
        }
        let missing = ScriptedTransport()
        missing.on(
            .get,
            path,
            status: 404,
            json: #"{"error":{"code":"resource_missing","type":"invalid_request_error"}}"#
        )
        await #expect { try await stripe(missing).verify(subscriptionProof) } throws: {
            ($0 as? StoreAdapterError)?.code == .notFound
        }
    }

    @Test func steamAgreementsShareTheTransportBehaviour() async throws {
        let proof = PurchaseProof(
            store: .steam,
            kind: .steamAgreement,
            token: "44",
            productId: "2001",
            context: ["steamid": SteamTestSupport.steamId]
        )
        let harness = SteamTestSupport.harness()
        harness.transport.on(.get, "/ISteamMicroTxn/GetUserAgreementInfo/v1/", status: 503, json: "{}")
        await #expect { try await harness.adapter.verify(proof) } throws: {
            ($0 as? StoreAdapterError)?.code == .storeUnavailable
        }
        let empty = SteamTestSupport.harness()
        empty.transport.on(
            .get,
            "/ISteamMicroTxn/GetUserAgreementInfo/v1/",
            json: #"{"response":{"result":"OK","params":{"agreements":[]}}}"#
        )
        await #expect { try await empty.adapter.verify(proof) } throws: {
            ($0 as? StoreAdapterError)?.code == .notFound
        }
        let request = try #require(empty.transport.requests.first?.request)
        #expect(request.headerFields[HTTPField.Name("x-webapi-key")!] == SteamTestSupport.publisherKey)
        #expect((request.path ?? "").contains("steamid=\(SteamTestSupport.steamId)&appid=480"))
    }
}
