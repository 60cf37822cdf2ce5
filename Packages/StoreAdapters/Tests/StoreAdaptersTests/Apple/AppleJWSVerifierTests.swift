import Crypto
import Foundation
import Logging
import OpenCatCore
import OpenCatTesting
import StoreAdapters
import Testing
import X509

struct AppleJWSVerifierTests {
    private func verifier(
        roots: [Certificate],
        validationTime: AppleJWSVerifier.ValidationTime = .signedDate,
        clock: ManualClock = ManualClock(),
        capacity: Int = 32
    ) -> AppleJWSVerifier {
        AppleJWSVerifier(
            rootCertificates: roots,
            validationTime: validationTime,
            clock: clock,
            chainCacheCapacity: capacity
        )
    }

    /// Expects `invalidProof` with the given failed check, and that no part of the JWS shows in the error.
    private func expectInvalid(
        _ jws: String,
        _ reason: String,
        verifier: AppleJWSVerifier,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let error = await appleStoreError(sourceLocation: sourceLocation) {
            try await verifier.verify(jws, as: JWSTransactionDecodedPayload.self)
        }
        #expect(error?.code == .invalidProof, sourceLocation: sourceLocation)
        #expect(error?.storeReason == reason, sourceLocation: sourceLocation)
        let text = "\(String(describing: error)) \(error?.message ?? "")"
        for segment in jws.split(separator: ".") where segment.count > 8 {
            #expect(!text.contains(segment), "the error shows part of the JWS", sourceLocation: sourceLocation)
        }
    }

    @Test func aJWSMintedByAChainWithApplesOIDsVerifies() async throws {
        let chain = try TestAppleChain()
        let transaction = AppleTestValues.transaction()
        let jws = try chain.sign(transaction)

        let decoded = try await verifier(roots: [chain.root]).verify(jws, as: JWSTransactionDecodedPayload.self)

        #expect(decoded == transaction)
        #expect(decoded.price == 9990)
        #expect(decoded.type == .autoRenewableSubscription)
        #expect(decoded.environment == .production)
        #expect(decoded.signedDate == AppleTestValues.signedDate)
    }

    @Test func aJWSHeldAsASecretVerifiesTheSame() async throws {
        let chain = try TestAppleChain()
        let jws = try chain.sign(AppleTestValues.transaction())
        let decoded = try await verifier(roots: [chain.root]).verify(Secret(jws), as: JWSTransactionDecodedPayload.self)
        #expect(decoded.transactionId == "2000000123456789")
    }

    @Test func aLeafWithoutTheReceiptSigningOIDIsRejected() async throws {
        let chain = try TestAppleChain(leafHasOID: false)
        await expectInvalid(
            try chain.sign(AppleTestValues.transaction()),
            "leafOIDMissing",
            verifier: verifier(roots: [chain.root])
        )
    }

    @Test func anIntermediateWithoutTheWWDROIDIsRejected() async throws {
        let chain = try TestAppleChain(intermediateHasOID: false)
        await expectInvalid(
            try chain.sign(AppleTestValues.transaction()),
            "intermediateOIDMissing",
            verifier: verifier(roots: [chain.root])
        )
    }

    @Test func aChainToAnotherRootIsRejected() async throws {
        let chain = try TestAppleChain()
        let stranger = try TestAppleChain(rootName: "Somebody Else's Root")
        await expectInvalid(
            try chain.sign(AppleTestValues.transaction()),
            "untrustedChain",
            verifier: verifier(roots: [stranger.root])
        )
    }

    @Test func theRootInsideX5CIsNeverTrusted() async throws {
        // An attacker's complete chain, root included, signed correctly: only the configured roots count.
        let attacker = try TestAppleChain(rootName: "OpenCat Test Root CA")
        let genuine = try TestAppleChain(rootName: "OpenCat Test Root CA")
        await expectInvalid(
            try attacker.sign(AppleTestValues.transaction()),
            "untrustedChain",
            verifier: verifier(roots: [genuine.root])
        )
    }

    @Test func aTamperedPayloadFailsTheSignatureCheck() async throws {
        let chain = try TestAppleChain()
        let jws = try chain.sign(AppleTestValues.transaction())
        let parts = jws.split(separator: ".").map(String.init)
        var forged = AppleTestValues.transaction()
        forged.productId = "dev.opencat.lifetime"
        let forgedPayload = TestAppleChain.base64URL(try JSONEncoder().encode(forged))
        let tampered = [parts[0], forgedPayload, parts[2]].joined(separator: ".")

        await expectInvalid(tampered, "invalidSignature", verifier: verifier(roots: [chain.root]))
    }

    @Test func aTamperedSignatureFailsTheSignatureCheck() async throws {
        let chain = try TestAppleChain()
        let jws = try chain.sign(AppleTestValues.transaction())
        let parts = jws.split(separator: ".").map(String.init)
        var signature = try #require(TestAppleChain.base64URLDecode(parts[2]))
        signature[10] ^= 0x01
        let tampered = [parts[0], parts[1], TestAppleChain.base64URL(signature)].joined(separator: ".")

        await expectInvalid(tampered, "invalidSignature", verifier: verifier(roots: [chain.root]))
    }

    @Test func aSignatureByAnotherKeyThanTheLeafFails() async throws {
        let chain = try TestAppleChain()
        let impostor = try TestAppleChain()
        // Signed by the impostor's leaf key, but presenting the genuine chain.
        let jws = try impostor.sign(AppleTestValues.transaction(), x5c: try chain.x5c())
        await expectInvalid(jws, "invalidSignature", verifier: verifier(roots: [chain.root]))
    }

    @Test func aDERSignatureInsteadOfRawRSIsMalformed() async throws {
        let chain = try TestAppleChain()
        let jws = try chain.sign(AppleTestValues.transaction())
        let parts = jws.split(separator: ".").map(String.init)
        let der = chain.leafSignature(for: Data((parts[0] + "." + parts[1]).utf8)).derRepresentation
        await expectInvalid(
            [parts[0], parts[1], TestAppleChain.base64URL(der)].joined(separator: "."),
            "malformedSignature",
            verifier: verifier(roots: [chain.root])
        )
    }

    @Test func anExpiredLeafFailsAtNowButVerifiesAtItsSignedDate() async throws {
        // The leaf expired on 2024-01-01; the transaction was signed in 2023; "now" is 2025.
        let chain = try TestAppleChain(leafNotAfter: Date(timeIntervalSince1970: 1_704_067_200))
        let jws = try chain.sign(AppleTestValues.transaction())
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_735_689_600))

        await expectInvalid(
            jws,
            "certificateExpired",
            verifier: verifier(roots: [chain.root], validationTime: .now, clock: clock)
        )
        let offline = try await verifier(roots: [chain.root], validationTime: .signedDate, clock: clock)
            .verify(jws, as: JWSTransactionDecodedPayload.self)
        #expect(offline.transactionId == "2000000123456789")
    }

    @Test func aFixedValidationTimeBeforeTheLeafIsNotYetValid() async throws {
        let chain = try TestAppleChain(leafNotBefore: Date(timeIntervalSince1970: 1_650_000_000))
        let jws = try chain.sign(AppleTestValues.transaction())
        await expectInvalid(
            jws,
            "certificateNotYetValid",
            verifier: verifier(roots: [chain.root], validationTime: .fixed(Date(timeIntervalSince1970: 1_620_000_000)))
        )
    }

    @Test func aJWSWithoutX5CIsRejected() async throws {
        let chain = try TestAppleChain()
        await expectInvalid(
            try chain.sign(AppleTestValues.transaction(), omitX5C: true),
            "missingX5C",
            verifier: verifier(roots: [chain.root])
        )
    }

    @Test func anAlgorithmOtherThanES256IsRejected() async throws {
        let chain = try TestAppleChain()
        await expectInvalid(
            try chain.sign(AppleTestValues.transaction(), alg: "none"),
            "unsupportedAlgorithm",
            verifier: verifier(roots: [chain.root])
        )
    }

    @Test func aChainOfTwoCertificatesIsRejected() async throws {
        let chain = try TestAppleChain()
        let shortChain = Array(try chain.x5c().prefix(2))
        await expectInvalid(
            try chain.sign(AppleTestValues.transaction(), x5c: shortChain),
            "invalidChainLength",
            verifier: verifier(roots: [chain.root])
        )
    }

    @Test func anX5CEntryThatIsNotACertificateIsRejected() async throws {
        let chain = try TestAppleChain()
        var x5c = try chain.x5c()
        x5c[0] = Data("not a certificate".utf8).base64EncodedString()
        await expectInvalid(
            try chain.sign(AppleTestValues.transaction(), x5c: x5c),
            "malformedCertificate",
            verifier: verifier(roots: [chain.root])
        )
    }

    // A payload that is not base64url behind a good header fails as malformed too, but only once the header and
    // signature have been checked (the payload is not read before): see aPayloadIsReadOnlyAfterTheSignature.
    @Test(arguments: ["", "abc", "a.b", "a.b.c.d", "!!!.e30.AAAA", "e30.e30."])
    func textThatIsNotACompactJWSIsMalformed(_ text: String) async throws {
        let chain = try TestAppleChain()
        let error = await appleStoreError {
            try await verifier(roots: [chain.root]).verify(text, as: JWSTransactionDecodedPayload.self)
        }
        #expect(error?.code == .invalidProof)
        #expect(error?.storeReason == "malformedJWS")
    }

    @Test func aSecondJWSFromTheSameChainReusesTheValidatedChain() async throws {
        let chain = try TestAppleChain()
        let verifier = verifier(roots: [chain.root])
        let first = try chain.sign(AppleTestValues.transaction(transactionId: "1"))
        let second = try chain.sign(AppleTestValues.transaction(transactionId: "2"))

        _ = try await verifier.verify(first, as: JWSTransactionDecodedPayload.self)
        let decoded = try await verifier.verify(second, as: JWSTransactionDecodedPayload.self)

        #expect(decoded.transactionId == "2")
        #expect(verifier.statistics.chainValidations == 1)
        #expect(verifier.statistics.cacheHits == 1)
        #expect(verifier.statistics.cachedChains == 1)
    }

    @Test func aCachedChainStillChecksEverySignature() async throws {
        let chain = try TestAppleChain()
        let verifier = verifier(roots: [chain.root])
        let jws = try chain.sign(AppleTestValues.transaction())
        _ = try await verifier.verify(jws, as: JWSTransactionDecodedPayload.self)

        let parts = jws.split(separator: ".").map(String.init)
        var forged = AppleTestValues.transaction()
        forged.price = 10
        let tampered = [parts[0], TestAppleChain.base64URL(try JSONEncoder().encode(forged)), parts[2]].joined(
            separator: "."
        )
        await expectInvalid(tampered, "invalidSignature", verifier: verifier)
        // The cached leaf key checked the signature; the forgery was refused before any chain work.
        #expect(verifier.statistics.chainValidations == 1)
        #expect(verifier.statistics.cachedChains == 1)
    }

    @Test func aCachedChainIsNotUsedOutsideItsValidity() async throws {
        // Leaf valid until 2024-01-01. The first JWS (signed 2023) caches the chain; the second, signed in 2025 with
        // the same header, must be re-validated and fail.
        let chain = try TestAppleChain(leafNotAfter: Date(timeIntervalSince1970: 1_704_067_200))
        let verifier = verifier(
            roots: [chain.root],
            clock: ManualClock(start: Date(timeIntervalSince1970: 1_735_700_000))
        )
        _ = try await verifier.verify(
            try chain.sign(AppleTestValues.transaction()),
            as: JWSTransactionDecodedPayload.self
        )

        let late = try chain.sign(AppleTestValues.transaction(signedDate: Date(timeIntervalSince1970: 1_735_689_600)))
        await expectInvalid(late, "certificateExpired", verifier: verifier)
        #expect(verifier.statistics.chainValidations == 2)
        #expect(verifier.statistics.cacheHits == 0)
    }

    @Test func theCacheIsBoundedAndEvictsTheLeastRecentlyUsedChain() async throws {
        let a = try TestAppleChain(), b = try TestAppleChain(), c = try TestAppleChain()
        let verifier = verifier(roots: [a.root, b.root, c.root], capacity: 2)
        func verify(_ chain: TestAppleChain) async throws {
            _ = try await verifier.verify(
                try chain.sign(AppleTestValues.transaction()),
                as: JWSTransactionDecodedPayload.self
            )
        }
        try await verify(a)  // validate a
        try await verify(b)  // validate b
        try await verify(a)  // hit a; b is now the least recently used
        try await verify(c)  // validate c, evicting b
        try await verify(a)  // hit a
        #expect(verifier.statistics.chainValidations == 3)
        try await verify(b)  // b was evicted: validated again
        #expect(verifier.statistics.chainValidations == 4)
        #expect(verifier.statistics.cachedChains == 2)
        #expect(verifier.statistics.cacheHits == 2)
    }

    @Test func aZeroCapacityCacheValidatesEveryTime() async throws {
        let chain = try TestAppleChain()
        let verifier = verifier(roots: [chain.root], capacity: 0)
        for id in 1...3 {
            _ = try await verifier.verify(
                try chain.sign(AppleTestValues.transaction(transactionId: "\(id)")),
                as: JWSTransactionDecodedPayload.self
            )
        }
        #expect(verifier.statistics.chainValidations == 3)
        #expect(verifier.statistics.cachedChains == 0)
    }

    @Test func concurrentVerificationsOfOneChainAllSucceed() async throws {
        let chain = try TestAppleChain()
        let verifier = verifier(roots: [chain.root])
        let jwsList = try (1...20).map { try chain.sign(AppleTestValues.transaction(transactionId: "\($0)")) }
        let ids = try await withThrowingTaskGroup(of: String?.self) { group in
            for jws in jwsList {
                group.addTask { try await verifier.verify(jws, as: JWSTransactionDecodedPayload.self).transactionId }
            }
            return try await group.reduce(into: Set<String>()) { if let id = $1 { $0.insert(id) } }
        }
        #expect(ids.count == 20)
        #expect(verifier.statistics.cachedChains == 1)
    }

    @Test func theAppleRootCAG3FingerprintIsTheKnownConstant() throws {
        #expect(AppleRootCAG3.sha256Fingerprint == "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179")
        let chain = try TestAppleChain()
        let fingerprint = try #require(AppleRootCAG3.sha256Fingerprint(of: chain.root))
        #expect(
            fingerprint
                == SHA256.hash(data: chain.ca.rootCertificateDER).map { String(format: "%02x", $0) }.joined()
        )
        #expect(!AppleRootCAG3.matches(chain.root))
    }

    @Test func aConfiguredRootOtherThanAppleRootCAG3IsLoggedAsAWarning() throws {
        let chain = try TestAppleChain()
        let handler = AppleRecordingLogHandler()
        _ = AppleJWSVerifier(rootCertificates: [chain.root], logger: handler.logger())

        let warnings = handler.recorded.filter { $0.level == .warning }
        #expect(warnings.count == 1)
        #expect(warnings.first?.message.contains("Apple Root CA - G3") == true)
        #expect(
            warnings.first?.metadata.contains(try #require(AppleRootCAG3.sha256Fingerprint(of: chain.root))) == true
        )
    }

    @Test func theValidationDateFollowsTheConfiguredMode() throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000))
        let signed = Date(timeIntervalSince1970: 1_700_000_000)
        let fixed = Date(timeIntervalSince1970: 1_750_000_000)
        #expect(
            try verifier(roots: [], validationTime: .signedDate, clock: clock).validationDate(signedDate: signed)
                == signed
        )
        #expect(
            try verifier(roots: [], validationTime: .signedDate, clock: clock).validationDate(signedDate: nil)
                == clock.currentDate
        )
        #expect(
            try verifier(roots: [], validationTime: .now, clock: clock).validationDate(signedDate: signed)
                == clock.currentDate
        )
        #expect(
            try verifier(roots: [], validationTime: .fixed(fixed), clock: clock).validationDate(signedDate: signed)
                == fixed
        )
    }

    // MARK: - verifyPayload (lean path)

    /// A leaf that expired on 2024-01-01, a clock in 2025: a JWS verifies only if its 2023 `signedDate` is found.
    private func expiredLeafSetup() throws -> (TestAppleChain, AppleJWSVerifier) {
        let chain = try TestAppleChain(leafNotAfter: Date(timeIntervalSince1970: 1_704_067_200))
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_735_689_600))
        return (chain, verifier(roots: [chain.root], validationTime: .signedDate, clock: clock))
    }

    @Test func verifyPayloadReturnsTheSignedBytesAndDatesTheChainAtSignedDate() async throws {
        let (chain, verifier) = try expiredLeafSetup()
        let json = Data(#"{"bundleId":"x","nested":{"a":[1,2,{"b":"}"}]},"signedDate":1700000000000,"s":"\"q\""}"#.utf8)
        let payload = try await verifier.verifyPayload(try chain.signRaw(payloadJSON: json, x5c: try chain.x5c()))
        #expect(payload == json)
    }

    @Test func verifyPayloadIgnoresASignedDateThatIsNotTopLevel() async throws {
        let (chain, verifier) = try expiredLeafSetup()
        let json = Data(#"{"data":{"signedDate":1700000000000},"list":["signedDate"]}"#.utf8)
        let error = await appleStoreError {
            try await verifier.verifyPayload(try chain.signRaw(payloadJSON: json, x5c: try chain.x5c()))
        }
        #expect(error?.storeReason == "certificateExpired")
    }

    @Test(arguments: [
        #"{"signed\u0044ate":1700000000000}"#,
        #" { "a" : true , "signedDate" : 1700000000000 } "#,
        #"{"signedDate":1700000000000,"b":null,"c":-1.5e3}"#,
    ])
    func verifyPayloadAgreesWithJSONDecoderOnUnusualLayouts(_ text: String) async throws {
        let (chain, verifier) = try expiredLeafSetup()
        let payload = try await verifier.verifyPayload(
            try chain.signRaw(payloadJSON: Data(text.utf8), x5c: try chain.x5c())
        )
        #expect(payload == Data(text.utf8))
    }

    @Test(arguments: [#"{"signedDate":"soon"}"#, "[1,2]", "not json"])
    func verifyPayloadRejectsPayloadsJSONDecoderCannotRead(_ text: String) async throws {
        let (chain, verifier) = try expiredLeafSetup()
        let error = await appleStoreError {
            try await verifier.verifyPayload(try chain.signRaw(payloadJSON: Data(text.utf8), x5c: try chain.x5c()))
        }
        #expect(error?.storeReason == "malformedJWS")
    }

    @Test func verifyPayloadSharesTheChainCacheWithVerify() async throws {
        let chain = try TestAppleChain()
        let verifier = verifier(roots: [chain.root])
        _ = try await verifier.verify(
            try chain.sign(AppleTestValues.transaction()),
            as: JWSTransactionDecodedPayload.self
        )
        for id in 1...5 {
            _ = try await verifier.verifyPayload(try chain.sign(AppleTestValues.transaction(transactionId: "\(id)")))
        }
        #expect(verifier.statistics.chainValidations == 1)
        #expect(verifier.statistics.cacheHits == 5)
    }
}
