import Foundation
import OpenCatCore
import OpenCatTesting
import StoreAdapters
import Synchronization
import Testing
import X509

/// Regression tests of the App Store JWS security review: nothing from the payload before the signature, sane
/// validation times, size limits, canonical encodings, key usage, backdating, environment and buyer binding.
struct AppleJWSSecurityTests {
    static let chain = try! TestAppleChain()

    /// 86 × "A": a syntactically valid 64-byte ES256 signature that matches nothing.
    static let garbageSignature = String(repeating: "A", count: 86)

    /// signedDate values that used to reach swift-certificates' `Time` initialiser and trap it.
    static let extremeSignedDates: [Int64] = [
        253_402_300_800_000,  // 10000-01-01
        Int64.max, Int64.min, -62_135_596_800_001,  // before year 1
        0, 1_420_070_399_999,  // before 2015
        1_700_000_000_000 + 2 * 86_400_000,  // two days after the verifier's clock
    ]

    private func verifier(
        validationTime: AppleJWSVerifier.ValidationTime = .signedDate,
        clock: ManualClock = ManualClock()
    ) -> AppleJWSVerifier {
        AppleJWSVerifier(rootCertificates: [Self.chain.root], validationTime: validationTime, clock: clock)
    }

    private func adapter(environment: VerifiedPurchase.Environment? = .production) -> AppleStoreAdapter {
        AppleStoreAdapter(
            configuration: .init(
                bundleId: AppleTestValues.bundleId,
                rootCertificates: [Self.chain.root],
                environment: environment,
                httpClient: .scripted(ScriptedTransport(), clock: ManualClock(start: AppleTestValues.signedDate))
            )
        )
    }

    /// A JSON payload with the given raw `signedDate` (any Int64, as an attacker would write it).
    private func payload(signedDate: Int64, extra: String = "") -> Data {
        Data(
            #"{"bundleId":"\#(AppleTestValues.bundleId)","environment":"Production","signedDate":\#(signedDate)\#(extra)}"#
                .utf8
        )
    }

    private func withSignature(_ jws: String, _ signature: String) -> String {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        return "\(parts[0]).\(parts[1]).\(signature)"
    }

    // MARK: - Critical: forged signedDate

    @Test(arguments: extremeSignedDates)
    func aForgedJWSWithAnAbsurdSignedDateIsRejectedWithoutTrapping(_ signedDate: Int64) async throws {
        let verifier = verifier()
        let forged = withSignature(
            try Self.chain.signRaw(payloadJSON: payload(signedDate: signedDate), x5c: Self.chain.x5c()),
            Self.garbageSignature
        )

        for check in [
            { _ = try await verifier.verify(forged, as: JWSTransactionDecodedPayload.self) },
            { _ = try await verifier.verify(forged, as: JWSRenewalInfoDecodedPayload.self) },
            { _ = try await verifier.verifyPayload(forged) },
            {
                let body = Data(#"{"signedPayload":"\#(forged)"}"#.utf8)
                _ = try await adapter().verifyNotification(body: body)
            },
        ] as [@Sendable () async throws -> Void] {
            let error = await appleStoreError { try await check() }
            #expect(error?.code == .invalidProof)
            #expect(error?.storeReason == "invalidSignature")
        }
    }

    @Test(arguments: extremeSignedDates)
    func aGenuinelySignedAbsurdSignedDateIsOutOfRange(_ signedDate: Int64) async throws {
        // Whoever holds a chain's leaf key (a test chain here) still cannot make the verifier trap.
        let jws = try Self.chain.signRaw(payloadJSON: payload(signedDate: signedDate), x5c: Self.chain.x5c())
        let error = await appleStoreError { try await verifier().verifyPayload(jws) }
        #expect(error?.code == .invalidProof)
        #expect(error?.storeReason == "validationTimeOutOfRange")
    }

    @Test(arguments: [
        Date(timeIntervalSince1970: -62_167_219_200),  // 0000-01-01
        Date(timeIntervalSince1970: 253_402_300_800),  // 10000-01-01
        Date(timeIntervalSince1970: 3_093_527_980_800),  // 99999-01-01
        Date.distantFuture.addingTimeInterval(1e12), Date(timeIntervalSince1970: -1e15),
    ])
    func aFixedTimeOrAClockOutsideYears1To9999IsOutOfRange(_ date: Date) async throws {
        let jws = try Self.chain.sign(AppleTestValues.transaction())
        for verifier in [
            verifier(validationTime: .fixed(date)), verifier(validationTime: .now, clock: ManualClock(start: date)),
        ] {
            let error = await appleStoreError { try await verifier.verify(jws, as: JWSTransactionDecodedPayload.self) }
            #expect(error?.storeReason == "validationTimeOutOfRange")
        }
    }

    @Test func randomBytesInEverySegmentNeverTrap() async throws {
        var generator = SplitMix64(seed: 0x0C47)
        let verifier = verifier()
        let genuine = try Self.chain.sign(AppleTestValues.transaction())
        let parts = genuine.split(separator: ".").map(String.init)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/{}\":,\u{0}é")
        for round in 0..<300 {
            var segments = parts
            let index = round % 3
            var characters = Array(segments[index])
            if round % 2 == 0 {
                // Random characters in a random segment.
                let count = Int(generator.next() % 120)
                characters = (0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            } else if !characters.isEmpty {
                // One character of a genuine segment changed.
                characters[Int(generator.next() % UInt64(characters.count))] =
                    alphabet[Int(generator.next() % UInt64(alphabet.count))]
            }
            segments[index] = String(characters)
            let text = segments.joined(separator: ".")
            if text == genuine { continue }
            let error = await appleStoreError { try await verifier.verify(text, as: JWSTransactionDecodedPayload.self) }
            #expect(error?.code == .invalidProof)
        }
    }

    // MARK: - Size limits

    @Test func aJWSOverTheLimitIsRefusedBeforeItIsRead() async throws {
        let padding = String(repeating: "x", count: 70 * 1024)
        let large = try Self.chain.signRaw(
            payloadJSON: payload(signedDate: 1_700_000_000_000, extra: #","padding":"\#(padding)""#),
            x5c: Self.chain.x5c()
        )
        let error = await appleStoreError { try await verifier().verify(large, as: JWSTransactionDecodedPayload.self) }
        #expect(error?.storeReason == "tooLarge")
        // The same size is within the notification limit.
        #expect(try await verifier().verifyPayload(large).count > 70 * 1024)

        let huge = String(repeating: "A", count: 300 * 1024)
        let body = Data(#"{"signedPayload":"\#(huge).\#(huge).\#(huge)"}"#.utf8)
        let notificationError = await appleStoreError { try await adapter().verifyNotification(body: body) }
        #expect(notificationError?.storeReason == "tooLarge")
    }

    // MARK: - Canonical encodings, key usage

    @Test func aSignatureWithNonZeroPadBitsIsMalformed() async throws {
        let jws = try Self.chain.sign(AppleTestValues.transaction())
        _ = try await verifier().verify(jws, as: JWSTransactionDecodedPayload.self)
        let signature = String(jws.split(separator: ".")[2])
        // 64 bytes are 86 characters whose last carries 4 unused bits: set one of them.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = try #require(alphabet.firstIndex(of: signature.last!))
        #expect(last % 16 == 0)
        let altered = String(signature.dropLast()) + String(alphabet[last + 1])
        let error = await appleStoreError {
            try await verifier().verify(withSignature(jws, altered), as: JWSTransactionDecodedPayload.self)
        }
        #expect(error?.storeReason == "malformedSignature")
    }

    @Test func aLeafWhoseKeyUsageExcludesDigitalSignatureIsRefused() async throws {
        let chain = try TestAppleChain(leafKeyUsage: KeyUsage(keyEncipherment: true))
        let verifier = AppleJWSVerifier(rootCertificates: [chain.root], clock: ManualClock())
        let error = await appleStoreError {
            try await verifier.verify(
                try chain.sign(AppleTestValues.transaction()),
                as: JWSTransactionDecodedPayload.self
            )
        }
        #expect(error?.code == .invalidProof)
        #expect(error?.storeReason == "chainPolicyFailed")

        // Without a Key Usage extension the key's use is unrestricted (RFC 5280), as in Apple's own test chain.
        let unrestricted = try TestAppleChain(leafKeyUsage: nil)
        let decoded = try await AppleJWSVerifier(rootCertificates: [unrestricted.root], clock: ManualClock())
            .verify(try unrestricted.sign(AppleTestValues.transaction()), as: JWSTransactionDecodedPayload.self)
        #expect(decoded.transactionId == AppleTestValues.transaction().transactionId)
    }

    @Test func onlineRevocationChecksAskTheLeafsResponder() async throws {
        final class Responder: OCSPRequester, Sendable {
            let asked = Mutex<[String]>([])
            let terminal: Bool
            init(terminal: Bool) { self.terminal = terminal }
            func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult {
                asked.withLock { $0.append(uri) }
                return terminal ? .terminalError(CancellationError()) : .nonTerminalError(CancellationError())
            }
        }
        let chain = try TestAppleChain(leafOCSPURI: "http://ocsp.test.invalid/ocsp03-leaf")
        let jws = try chain.sign(AppleTestValues.transaction())
        let clock = ManualClock(start: AppleTestValues.signedDate.addingTimeInterval(3_600))
        for terminal in [true, false] {
            let responder = Responder(terminal: terminal)
            let verifier = AppleJWSVerifier(
                rootCertificates: [chain.root],
                clock: clock,
                revocationCheck: .ocsp(requester: responder, failureMode: .hard)
            )
            if terminal {
                let error = await appleStoreError {
                    try await verifier.verify(jws, as: JWSTransactionDecodedPayload.self)
                }
                #expect(error?.storeReason == "revocationCheckFailed")
            } else {
                _ = try await verifier.verify(jws, as: JWSTransactionDecodedPayload.self)
                // Nothing is cached with online checks: every verification asks again.
                _ = try await verifier.verify(jws, as: JWSTransactionDecodedPayload.self)
            }
            #expect(responder.asked.withLock { $0 }.allSatisfy { $0 == "http://ocsp.test.invalid/ocsp03-leaf" })
            #expect(responder.asked.withLock { $0.count } == (terminal ? 1 : 2))
        }
    }

    // MARK: - Backdated signatures

    @Test func aTransactionSignedBeforeItsPurchaseIsRefused() async throws {
        var backdated = AppleTestValues.transaction()
        backdated.purchaseDate = AppleTestValues.signedDate.addingTimeInterval(3 * 86_400)
        backdated.originalPurchaseDate = backdated.purchaseDate
        let error = await appleStoreError {
            try await adapter().verify(
                PurchaseProof(
                    store: .apple,
                    kind: .appleSignedTransaction,
                    token: Secret(try Self.chain.sign(backdated))
                )
            )
        }
        #expect(error?.storeReason == "signedBeforePurchase")

        // A renewal billed a few hours before its period starts is genuine.
        var early = AppleTestValues.transaction()
        early.purchaseDate = AppleTestValues.signedDate.addingTimeInterval(6 * 3_600)
        let purchase = try await adapter().verify(
            PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: Secret(try Self.chain.sign(early)))
        )
        #expect(purchase.state == .active)
    }

    // MARK: - Environment, buyer, upgrades

    @Test func sandboxAndXcodePurchasesAreRefusedByDefault() async throws {
        for environment in ["Sandbox", "Xcode", "LocalTesting"] {
            let jws = try Self.chain.sign(AppleTestValues.transaction(environment: environment))
            let proof = PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: Secret(jws))
            let error = await appleStoreError {
                try await AppleStoreAdapter(
                    configuration: .init(bundleId: AppleTestValues.bundleId, rootCertificates: [Self.chain.root])
                ).verify(proof)
            }
            #expect(error?.code == .wrongApplication)
            #expect(error?.storeReason == "environmentMismatch")

            // Opting in keeps the environment all the way to the entitlement engine.
            let accepted = try await adapter(environment: nil).verify(proof)
            #expect(accepted.environment == .sandbox)
            #expect(accepted.transactionInfo.environment == .sandbox)
        }
        #expect(AppleStoreAdapter.Configuration(bundleId: "b", rootCertificates: []).environment == .production)
    }

    @Test func theExpectedBuyerMustMatchTheAppAccountToken() async throws {
        let jws = try Self.chain.sign(AppleTestValues.transaction())
        let matching = PurchaseProof(
            store: .apple,
            kind: .appleSignedTransaction,
            token: Secret(jws),
            expectedPurchaser: AppleTestValues.appAccountToken
        )
        #expect(
            try await adapter().verify(matching).transactionInfo.purchaser
                == AppleTestValues.appAccountToken.lowercased()
        )

        var other = matching
        other.expectedPurchaser = UUID().uuidString
        let error = await appleStoreError { try await adapter().verify(other) }
        #expect(error?.code == .purchaserMismatch)
        #expect(error?.storeReason == "appAccountTokenMismatch")
    }

    @Test func anUpgradedTransactionGrantsNothing() async throws {
        var upgraded = AppleTestValues.transaction()
        upgraded.isUpgraded = true
        let purchase = try await adapter().verify(
            PurchaseProof(store: .apple, kind: .appleSignedTransaction, token: Secret(try Self.chain.sign(upgraded)))
        )
        #expect(purchase.state == .expired)
        #expect(purchase.willRenew == false)
    }
}

/// A small deterministic generator (SplitMix64) so the random sweep is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
