import Crypto
import Foundation
import Logging
import OpenCat
import OpenCatCore
import OpenCatTesting
import Testing

/// Secrets never reach logs, error descriptions or the cache file.
struct PrivacyTests {
    static let apiKey = "ocat_live_SECRETAPIKEY_9f8e7d6c5b4a"
    static let userId = "user-PRIVATE-31337"
    static let productIds = ["com.secretgame.gems.pack500", "com.secretgame.pro.annual"]
    static let transactionIds = ["TXN-7777000011112222", "TXN-7777000033334444"]
    static let proofs = [
        "eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlF.PROOF-ONE-SIGNED-PAYLOAD.c2lnbmF0dXJlLW9uZQ",
        "gpa-PURCHASE-TOKEN-two-aGVsbG8td29ybGQtdG9rZW4",
        "FORGED-PROOF-THREE-should-not-leak-either",
    ]

    let directory = Fixture.temporaryDirectory()
    let capture = LogCapture()

    func runFullFlow(mode: (FakeOpenCatServer) -> OpenCat.Mode) async throws -> [String] {
        let server = FakeOpenCatServer(apiKey: Self.apiKey)
        server.setEntitlementMap([Self.productIds[0]: ["gems"], Self.productIds[1]: ["pro"]])
        let store = TestStoreClient()
        var errors: [String] = []
        for (index, product) in Self.productIds.enumerated() {
            let proof = Fixture.proof(Self.proofs[index], product: product, transaction: Self.transactionIds[index])
            store.script(product, .result(.success(proof)))
            server.know(
                token: Self.proofs[index],
                as: Fixture.transaction(Self.transactionIds[index], product: product)
            )
        }
        store.script(
            Self.productIds[0],
            .result(.success(Fixture.proof(Self.proofs[2], product: Self.productIds[0], transaction: "TXN-FORGED")))
        )
        store.script(Self.productIds[1], .result(.cancelled))
        let sdk = try OpenCat(
            mode: mode(server),
            appUserId: Self.userId,
            storeClient: store,
            options: .init(
                cacheDirectory: directory,
                keyProvider: FileKeyProvider(fileURL: directory.appendingPathComponent("k")),
                clock: ManualClock(start: Fixture.epoch, autoAdvance: true),
                transport: server,
                retryPolicy: RetryPolicy(maxAttempts: 2, jitter: .none),
                logger: capture.logger,
                logLevel: .trace
            )
        )
        sdk.setLogLevel(.debug)
        _ = try await sdk.offerings()
        for product in Self.productIds { _ = try await sdk.purchase(productID: product) }
        for product in Self.productIds {
            do { _ = try await sdk.purchase(productID: product) } catch {
                errors.append(String(describing: error)); errors.append("\(error)")
            }
        }
        server.setAvailability(.offline)
        store.script(
            Self.productIds[1],
            .result(
                .success(
                    Fixture.proof(Self.proofs[1], product: Self.productIds[1], transaction: Self.transactionIds[1])
                )
            )
        )
        _ = try? await sdk.purchase(productID: Self.productIds[1])
        _ = await sdk.customerInfo()
        server.setAvailability(.failing(500))
        _ = await sdk.syncPendingPurchases()
        server.setAvailability(.online)
        _ = try await sdk.restorePurchases()
        _ = await sdk.customerInfo()
        #expect(sdk.isEntitled("pro"))
        await sdk.shutdown()
        return errors
    }

    static func serverMode(_ server: FakeOpenCatServer) -> OpenCat.Mode {
        .server(serverURL: URL(string: "https://api.opencat.test")!, apiKey: Secret(apiKey))
    }

    @Test func noSecretReachesALogLineOrAnErrorDescription() async throws {
        let errors = try await runFullFlow(mode: Self.serverMode)
        #expect(errors.count >= 2)
        let lines = capture.all
        #expect(lines.count > 10, "debug logging should cover the flow")
        #expect(lines.contains { $0.contains("purchase") })
        #expect(lines.contains { $0.contains("cache hit") || $0.contains("cache miss") })
        #expect(lines.contains { $0.contains("server:") })
        for secret in Self.proofs + [Self.apiKey] {
            for line in lines + errors { #expect(!line.contains(secret), "secret leaked: \(line)") }
        }
    }

    @Test func theCacheFileHoldsNoUserProductTransactionOrProofInPlaintext() async throws {
        _ = try await runFullFlow(mode: Self.serverMode)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix("opencat-cache")
        }
        #expect(!files.isEmpty)
        for file in files {
            let raw = try Data(contentsOf: directory.appendingPathComponent(file))
            let needles = [Self.userId, Self.apiKey] + Self.productIds + Self.transactionIds + Self.proofs
            for needle in needles {
                #expect(raw.range(of: Data(needle.utf8)) == nil, "\(needle) found in \(file)")
                #expect(raw.range(of: Data(needle.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })) == nil)
            }
        }
    }
}
