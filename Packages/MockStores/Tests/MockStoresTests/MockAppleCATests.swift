import Crypto
import Foundation
import MockStores
import OpenCatTesting
import SwiftASN1
import Testing
@_spi(FixedExpiryValidationTime) import X509

struct MockAppleCATests {
    static let signedDate = Date(timeIntervalSince1970: 1_750_000_000)

    static func parts(_ jws: String) throws -> (header: JSONValue, payload: Data, signature: Data, input: Data) {
        let pieces = jws.split(separator: ".", omittingEmptySubsequences: false)
        try #require(pieces.count == 3)
        let header = try JSONValue(parsing: try #require(TestJWT.base64URLDecode(pieces[0])))
        return (
            header, try #require(TestJWT.base64URLDecode(pieces[1])), try #require(TestJWT.base64URLDecode(pieces[2])),
            Data("\(pieces[0]).\(pieces[1])".utf8)
        )
    }

    static func validate(_ ca: MockAppleCA, at time: Date) async -> CertificateValidationResult {
        var verifier = Verifier(rootCertificates: CertificateStore([ca.rootCertificate])) {
            RFC5280Policy(fixedExpiryValidationTime: time)
        }
        return await verifier.validate(
            leaf: ca.leafCertificate,
            intermediates: CertificateStore([ca.intermediateCertificate])
        )
    }

    @Test func aSignedJWSCarriesTheChainAndVerifiesWithTheLeafKey() throws {
        let ca = TestKeys.appleCA
        let jws = ca.signJWS(["transactionId": "2000000000000001", "price": 9990, "signedDate": 1_750_000_000_000])
        let (header, payload, signature, input) = try Self.parts(jws)
        #expect(header["alg"] == "ES256")
        #expect(header.objectValue?.keys.sorted() == ["alg", "x5c"])
        let x5c = try #require(header["x5c"]?.arrayValue).compactMap(\.stringValue)
        #expect(x5c == ca.x5c)
        #expect(x5c.count == 3)
        #expect(Data(base64Encoded: x5c[2]) == ca.rootCertificateDER)
        #expect(try JSONValue(parsing: payload)["price"] == 9990)
        #expect(signature.count == 64)

        let rawSignature = try P256.Signing.ECDSASignature(rawRepresentation: signature)
        #expect(ca.leafPublicKey.isValidSignature(rawSignature, for: input))
        let leaf = try Certificate(derEncoded: Array(try #require(Data(base64Encoded: x5c[0]))))
        let leafKey = try #require(P256.Signing.PublicKey(leaf.publicKey))
        #expect(leafKey.isValidSignature(rawSignature, for: input))
        #expect(!TestKeys.otherP256.publicKey.isValidSignature(rawSignature, for: input))
    }

    @Test func encodablePayloadsAreSignedToo() throws {
        struct Payload: Encodable { var bundleId = "dev.opencat.demo"; var quantity = 1 }
        let jws = try TestKeys.appleCA.signJWS(Payload())
        let payload = try JSONValue(parsing: try Self.parts(jws).payload)
        #expect(payload == ["bundleId": "dev.opencat.demo", "quantity": 1])
    }

    @Test func theChainValidatesAgainstTheRootAndCarriesAppleMarkers() async throws {
        let ca = TestKeys.appleCA
        guard case .validCertificate(let chain) = await Self.validate(ca, at: Self.signedDate) else {
            Issue.record("the chain did not validate")
            return
        }
        #expect(chain.count == 3)
        let intermediateMarker = try #require(
            ca.intermediateCertificate.extensions[oid: MockAppleCA.intermediateMarkerOID]
        )
        let leafMarker = try #require(ca.leafCertificate.extensions[oid: MockAppleCA.leafMarkerOID])
        #expect(!intermediateMarker.critical && !leafMarker.critical)
        #expect(Array(intermediateMarker.value) == [0x05, 0x00])
        #expect(Array(leafMarker.value) == [0x05, 0x00])
        #expect(ca.rootCertificate.notValidBefore == MockAppleCA.Options.defaultNotValidBefore)
        #expect(ca.leafCertificate.notValidAfter == MockAppleCA.Options.defaultNotValidAfter)
        if case .validCertificate = await Self.validate(ca, at: Date()) {} else { Issue.record("not valid today") }
    }

    @Test func anotherRootDoesNotValidateTheChain() async throws {
        let other = try MockAppleCA()
        var verifier = Verifier(rootCertificates: CertificateStore([other.rootCertificate])) {
            RFC5280Policy(fixedExpiryValidationTime: Self.signedDate)
        }
        let result = await verifier.validate(
            leaf: TestKeys.appleCA.leafCertificate,
            intermediates: CertificateStore([TestKeys.appleCA.intermediateCertificate])
        )
        guard case .couldNotValidate = result else {
            Issue.record("a foreign root validated the chain")
            return
        }
    }

    @Test func brokenChainsCanBeMinted() async throws {
        let bare = try MockAppleCA(options: .withoutAppleOIDs)
        #expect(bare.intermediateCertificate.extensions[oid: MockAppleCA.intermediateMarkerOID] == nil)
        #expect(bare.leafCertificate.extensions[oid: MockAppleCA.leafMarkerOID] == nil)

        let expired = try MockAppleCA(options: .expiredLeaf)
        guard case .couldNotValidate = await Self.validate(expired, at: Self.signedDate) else {
            Issue.record("an expired leaf validated")
            return
        }
        guard case .validCertificate = await Self.validate(expired, at: Date(timeIntervalSince1970: 1_590_000_000))
        else {
            Issue.record("the expired leaf did not validate during its validity")
            return
        }
    }
}
