import Foundation
import MockStores
import OpenCatTesting
import Testing

/// `opencat verify apple` as a user runs it: exit 0 verified, 2 not verified, 64 usage; never a trap.
@Suite(.serialized)
struct VerifyAppleCLITests {
    static let ca = try! MockAppleCA()
    static let bundleId = "dev.opencat.cli"

    private func transaction(signedDate: Int64 = 1_700_000_000_000, environment: String = "Production") -> Data {
        Data(
            """
            {"bundleId":"\(Self.bundleId)","environment":"\(environment)","originalPurchaseDate":1699990000000,\
            "originalTransactionId":"2000000000000001","productId":"dev.opencat.pro","purchaseDate":1699990000000,\
            "quantity":1,"signedDate":\(signedDate),"transactionId":"2000000000000002","type":"Non-Consumable"}
            """.utf8
        )
    }

    private func verify(_ jws: String, _ extra: [String] = []) async throws -> OpenCatCLI.Result {
        let folder = try ScratchFolder()
        let jwsFile = try folder.write("tx.jws", Data(jws.utf8))
        let root = try folder.write("root.der", Self.ca.rootCertificateDER)
        return try await OpenCatCLI.run(["verify", "apple", "--jws", jwsFile, "--root", root] + extra)
    }

    @Test func aGenuineTransactionVerifies() async throws {
        let result = try await verify(Self.ca.signJWS(payload: transaction()), ["--bundle-id", Self.bundleId])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("\"transactionId\" : \"2000000000000002\""))
    }

    @Test(arguments: [Int64(253_402_300_800_000), .max, .min, -62_135_596_800_001])
    func aForgedSignedDateExitsTwoWithoutTrapping(_ signedDate: Int64) async throws {
        let genuine = Self.ca.signJWS(payload: transaction(signedDate: signedDate))
        let forged =
            genuine.split(separator: ".").prefix(2).joined(separator: ".") + "." + String(repeating: "A", count: 86)
        for jws in [forged, genuine] {
            let result = try await verify(jws, ["--bundle-id", Self.bundleId])
            #expect(!result.trapped)
            #expect(result.status == 2, "\(result.standardError)")
            #expect(result.standardError.hasPrefix("not verified: invalidProof"))
        }
    }

    @Test(arguments: ["0000-01-01T00:00:00Z", "99999-01-01T00:00:00Z", "10000-01-01T00:00:00Z"])
    func anAbsurdValidationTimeNeverTraps(_ at: String) async throws {
        let result = try await verify(
            Self.ca.signJWS(payload: transaction()),
            ["--bundle-id", Self.bundleId, "--at", at]
        )
        #expect(!result.trapped)
        #expect(result.status == 2 || result.status == 64, "\(result.status) \(result.standardError)")
    }

    @Test func anAlteredPayloadIsNotVerifiedRatherThanAUsageError() async throws {
        let parts = Self.ca.signJWS(payload: transaction()).split(separator: ".").map(String.init)
        let otherPayload = Self.ca.signJWS(payload: transaction(signedDate: 1_700_000_000_001)).split(separator: ".")[1]
        let altered = [parts[0], String(otherPayload), parts[2]].joined(separator: ".")
        let result = try await verify(altered, ["--bundle-id", Self.bundleId])
        #expect(result.status == 2)
        #expect(result.standardError.contains("invalidSignature"))
    }

    @Test func theBundleIdIsCheckedUnlessTheUserWaivesItExplicitly() async throws {
        let jws = Self.ca.signJWS(payload: transaction())
        #expect(try await verify(jws).status == 64)
        let other = try await verify(jws, ["--bundle-id", "com.other.app"])
        #expect(other.status == 2)
        #expect(other.standardError.contains("bundleIdMismatch"))
        let waived = try await verify(jws, ["--any-bundle-id"])
        #expect(waived.status == 0)
        #expect(waived.standardError.contains("bundle id not checked"))
    }

    @Test func sandboxPurchasesNeedAnExplicitEnvironment() async throws {
        let jws = Self.ca.signJWS(payload: transaction(environment: "Sandbox"))
        let refused = try await verify(jws, ["--bundle-id", Self.bundleId])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("environmentMismatch"))
        #expect(try await verify(jws, ["--bundle-id", Self.bundleId, "--environment", "sandbox"]).status == 0)
    }
}
