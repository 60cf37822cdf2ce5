import Crypto
import Foundation
import MockStores
import OpenCat
import OpenCatCore
import OpenCatServer
import OpenCatTesting
import Testing

/// What an operator grants in the console reaches the app: the OpenCat SDK in server mode, against the same server,
/// reports the promotional entitlement active, and no longer once it is revoked.
struct PortalServerModeSDKTests {
    @Test(arguments: Backend.allCases)
    func theSDKInServerModeSeesAPromotionalEntitlementAnOperatorGranted(_ backend: Backend) async throws {
        try await PortalHarness.run(backend) { portal in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "opencat-portal-sdk-\(UUID().uuidString)"
            )
            defer { try? FileManager.default.removeItem(at: directory) }
            // The SDK's clock reads the server's time, so the 30-day grant is in force for it too.
            let clock = ManualClock(start: portal.clock.now, autoAdvance: true, holdsDuringExternalWork: true)
            let sdk = try OpenCat(
                mode: .server(serverURL: portal.url, apiKey: Secret(ServerFixture.apiKey)),
                appUserId: "user-1",
                storeClient: MockStoreClient(store: .apple, products: [], clock: clock),
                options: .init(
                    cacheDirectory: directory,
                    keyProvider: StaticKeyProvider(key: SymmetricKey(size: .bits256)),
                    clock: clock,
                    retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none),
                    requestTimeout: .seconds(60)
                )
            )
            #expect(await sdk.customerInfo().isEntitled("pro") == false)

            let ops = try await portal.operatorSignIn()
            let customer = try await ops.get("/console/customers/user-1")
            let grant = customer.html.fields(form: "grant-form")
                .merging(["entitlement": "pro", "days": "30", "reason": "support case 42"]) { $1 }
            #expect(try await ops.post("/console/customers/user-1/grant", grant).status == 303)

            let granted = await sdk.customerInfo()
            #expect(granted.isEntitled("pro"))
            #expect(sdk.isEntitled("pro"))

            let page = try await ops.get("/console/customers/user-1")
            let revoke = page.html.fields(formContaining: "name=\"promotion\"").merging(["reason": "case closed"]) {
                $1
            }
            #expect(try await ops.post("/console/customers/user-1/revoke", revoke).status == 303)
            #expect(await sdk.customerInfo().isEntitled("pro") == false)
            await sdk.shutdown()
        }
    }
}
