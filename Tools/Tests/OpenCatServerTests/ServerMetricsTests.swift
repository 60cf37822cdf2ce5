import Foundation
import HTTPTypes
import KeyServerClient
import Metrics
import OpenCatAsyncHTTPClient
import OpenCatCore
import OpenCatServer
import Prometheus
import StoreAdapters
import Testing

/// The test process's Prometheus registry, swift-metrics' backend (bootstrapped once, as the executable does).
enum TestMetrics {
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()
}

/// `/metrics`: an operator's token reads the request and purchase series; they name routes, stores and reason codes,
/// never a customer, an email or a token.
struct ServerMetricsTests {
    func metrics(_ harness: PortalHarness, token: String?) async throws -> (Int, String) {
        var request = HTTPRequest(
            method: .get,
            scheme: "http",
            authority: "127.0.0.1:\(harness.url.port!)",
            path: "/metrics"
        )
        if let token { request.headerFields[.authorization] = "Bearer \(token)" }
        let response = try await ServerKeyServerTests.transport.send(request, body: nil)
        return (response.head.status.code, String(decoding: response.body, as: UTF8.self))
    }

    @Test func anOperatorReadsRequestAndPurchaseSeriesWithNoCustomerInThem() async throws {
        try await PortalHarness.run(.sqlite, metrics: TestMetrics.registry) { harness in
            let bought = try await harness.buyApplePack(user: 7, transaction: "5300000000000007")
            #expect(bought.keysAdded == 10)
            // A proof the store refuses counts by its reason code.
            let forged = PurchaseProof(
                store: .apple,
                kind: .appleSignedTransaction,
                token: Secret(harness.fixture.appleTransaction(id: "5300000000000008", signer: harness.fixture.otherCA))
            )
            await #expect(throws: KeyServerError.self) {
                try await harness.keyClient(user: 7).purchaseKeyPack(forged, email: "user7@example.com")
            }
            #expect(try await metrics(harness, token: nil).0 == 401)
            #expect(try await metrics(harness, token: ServerFixture.token(7)).0 == 401)
            let (status, text) = try await metrics(harness, token: PortalHarness.operatorToken)
            #expect(status == 200)
            #expect(text.contains("opencat_purchases_accepted_total{"))
            #expect(text.contains(#"store="apple""#))
            #expect(text.contains("opencat_purchases_refused_total{"))
            #expect(text.contains("hb_requests") || text.contains("hb.requests"))
            #expect(text.contains("/api/v1/keys/purchase/"))
            // The database's use: transactions in flight and their durations, by dialect.
            #expect(text.contains(#"opencat_database_transactions_in_flight{database="sqlite"}"#))
            #expect(text.contains("opencat_database_transaction_duration_seconds"))
            for secret in [
                "user-7", "user7@example.com", ServerFixture.token(7), PortalHarness.operatorToken, "5300000000000007",
            ] {
                #expect(!text.contains(secret), "\(secret) is in /metrics")
            }
        }
    }
}
