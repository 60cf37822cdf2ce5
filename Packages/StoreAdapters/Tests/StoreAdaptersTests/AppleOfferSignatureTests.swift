import Crypto
import Foundation
import OpenCatCore
import StoreAdapters
import Testing

/// Apple's offer signatures: the original promotional offer signature (fields joined by U+2063, ECDSA P-256 DER) and
/// the JWS of promotional offers V2 and introductory offer eligibility, all verified with the key's public half.
struct AppleOfferSignatureTests {
    static let key = P256.Signing.PrivateKey()
    static let nonce = UUID(uuidString: "20FBA8A0-2B80-4A7D-A17F-85C1854727F8")!
    static let token = UUID(uuidString: "6B29FC40-CA47-1067-B31D-00DD010662DA")!
    static let timestamp: Int64 = 1_698_148_900_000

    let signer = ApplePromotionalOfferSigner(keyId: "ABCDEF1234", bundleId: "com.example.app", privateKey: Self.key)

    // MARK: - Promotional offer signature (V1)

    @Test func thePayloadIsTheDocumentedFieldsJoinedByInvisibleSeparatorsWithLowercaseUUIDs() {
        let payload = signer.payload(
            productId: "com.example.monthly",
            offerId: "WINBACK50",
            appAccountToken: Self.token,
            nonce: Self.nonce,
            timestamp: Self.timestamp
        )
        #expect(
            payload
                == "com.example.app\u{2063}ABCDEF1234\u{2063}com.example.monthly\u{2063}WINBACK50\u{2063}"
                + "6b29fc40-ca47-1067-b31d-00dd010662da\u{2063}"
                + "20fba8a0-2b80-4a7d-a17f-85c1854727f8\u{2063}1698148900000"
        )
        // U+2063 is E2 81 A3 in UTF-8, six times between seven fields.
        let bytes = Array(payload.utf8)
        let separators = (0..<(bytes.count - 2)).filter { bytes[$0..<$0 + 3].elementsEqual([0xE2, 0x81, 0xA3]) }
        #expect(separators.count == 6)
        #expect(payload.split(separator: "\u{2063}", omittingEmptySubsequences: false).count == 7)
    }

    @Test func anAbsentAppAccountTokenIsAnEmptyField() {
        let payload = signer.payload(
            productId: "p",
            offerId: "o",
            appAccountToken: nil,
            nonce: Self.nonce,
            timestamp: 0
        )
        #expect(
            payload == "com.example.app\u{2063}ABCDEF1234\u{2063}p\u{2063}o\u{2063}\u{2063}"
                + "20fba8a0-2b80-4a7d-a17f-85c1854727f8\u{2063}0"
        )
    }

    @Test func theSignatureIsBase64DERAndVerifiesWithThePublicKeyOverThePayloadOnly() throws {
        let base64 = try signer.signature(
            productId: "com.example.monthly",
            offerId: "WINBACK50",
            appAccountToken: Self.token,
            nonce: Self.nonce,
            timestamp: Self.timestamp
        )
        let der = try #require(Data(base64Encoded: base64))
        #expect(der.first == 0x30)  // an ASN.1 SEQUENCE of r and s
        let signature = try P256.Signing.ECDSASignature(derRepresentation: der)
        let payload = signer.payload(
            productId: "com.example.monthly",
            offerId: "WINBACK50",
            appAccountToken: Self.token,
            nonce: Self.nonce,
            timestamp: Self.timestamp
        )
        #expect(Self.key.publicKey.isValidSignature(signature, for: Data(payload.utf8)))
        #expect(signer.publicKey.rawRepresentation == Self.key.publicKey.rawRepresentation)
        // The order is part of what is signed: swapping product and offer breaks it.
        let swapped = signer.payload(
            productId: "WINBACK50",
            offerId: "com.example.monthly",
            appAccountToken: Self.token,
            nonce: Self.nonce,
            timestamp: Self.timestamp
        )
        #expect(!Self.key.publicKey.isValidSignature(signature, for: Data(swapped.utf8)))
        #expect(!P256.Signing.PrivateKey().publicKey.isValidSignature(signature, for: Data(payload.utf8)))
    }

    @Test func aSignedOfferCarriesWhatStoreKitNeeds() throws {
        let now = Date(timeIntervalSince1970: 1_698_148_900.125)
        let offer = try signer.signedOffer(
            productId: "com.example.monthly",
            offerId: "WINBACK50",
            appAccountToken: nil,
            nonce: Self.nonce,
            now: now
        )
        #expect(offer.keyIdentifier == "ABCDEF1234")
        #expect(offer.offerIdentifier == "WINBACK50")
        #expect(offer.nonce == "20fba8a0-2b80-4a7d-a17f-85c1854727f8")
        #expect(offer.timestamp == 1_698_148_900_125)
        let signature = try P256.Signing.ECDSASignature(
            derRepresentation: try #require(Data(base64Encoded: offer.signature))
        )
        let payload = signer.payload(
            productId: "com.example.monthly",
            offerId: "WINBACK50",
            appAccountToken: nil,
            nonce: Self.nonce,
            timestamp: offer.timestamp
        )
        #expect(Self.key.publicKey.isValidSignature(signature, for: Data(payload.utf8)))
    }

    // MARK: - Keys

    @Test func theKeyLoadsFromP8TextAndFiles() throws {
        let pem = Self.key.pemRepresentation
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))  // PKCS#8, as App Store Connect's .p8
        let fromText = try ApplePromotionalOfferSigner(keyId: "K", bundleId: "b", privateKeyPEM: Secret(pem + "\n"))
        #expect(fromText.publicKey.rawRepresentation == Self.key.publicKey.rawRepresentation)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("offer-key-\(UUID()).p8")
        try Data(pem.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try AppleOfferJWSSigner(keyId: "K", issuerId: "i", bundleId: "b", pemFile: file.path)
        #expect(fromFile.publicKey.rawRepresentation == Self.key.publicKey.rawRepresentation)
    }

    @Test func anUnusableKeyIsAMisconfigurationThatNeverShowsTheKey() throws {
        let notAKey = "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LXNlY3JldC1zZWNyZXQ=\n-----END PRIVATE KEY-----"
        let invalid = #expect(throws: StoreAdapterError.self) {
            try ApplePromotionalOfferSigner(keyId: "K", bundleId: "b", privateKeyPEM: Secret(notAKey))
        }
        #expect(invalid?.code == .misconfigured)
        #expect(invalid?.storeReason == "invalidPrivateKey")
        #expect(invalid.map { !$0.description.contains("c2VjcmV0") } == true)
        let p384 = P384.Signing.PrivateKey().pemRepresentation
        #expect(throws: StoreAdapterError.self) {
            try AppleOfferJWSSigner(keyId: "K", issuerId: "i", bundleId: "b", privateKeyPEM: Secret(p384))
        }
        let missing = #expect(throws: StoreAdapterError.self) {
            try ApplePromotionalOfferSigner(keyId: "K", bundleId: "b", pemFile: "/nonexistent/opencat/key.p8")
        }
        #expect(missing?.storeReason == "keyFileUnreadable")
    }

    // MARK: - JWS (promotional offer V2, introductory offer eligibility)

    let jwsSigner = AppleOfferJWSSigner(
        keyId: "ABCDEF1234",
        issuerId: "57246542-96fe-1a63-e053-0824d011072a",
        bundleId: "com.example.app",
        privateKey: Self.key
    )

    private func decoded(_ jws: String) throws -> (header: [String: Any], claims: [String: Any], data: Data) {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let headerData = try #require(Base64URL.decode(parts[0]))
        let header = try #require(try JSONSerialization.jsonObject(with: headerData) as? [String: Any])
        let claimsData = try #require(Base64URL.decode(parts[1]))
        let claims = try #require(try JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(parts[2])))
        #expect(Self.key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        #expect(header.count == 3)
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "ABCDEF1234")
        #expect(header["typ"] as? String == "JWT")
        return (header, claims, claimsData)
    }

    @Test func aPromotionalOfferJWSHasTheDocumentedHeaderAndClaimsAndVerifies() throws {
        let jws = try jwsSigner.promotionalOffer(
            productId: "com.example.monthly",
            offerIdentifier: "WINBACK50",
            transactionId: "2000000123456789",
            nonce: Self.nonce,
            issuedAt: Date(timeIntervalSince1970: 1_698_148_900.9)
        )
        let (_, claims, data) = try decoded(jws)
        #expect(
            Set(claims.keys) == ["iss", "iat", "aud", "bid", "nonce", "productId", "offerIdentifier", "transactionId"]
        )
        #expect(
            try JSONDecoder().decode(AppleOfferJWSSigner.Claims.self, from: data)
                == AppleOfferJWSSigner.Claims(
                    iss: "57246542-96fe-1a63-e053-0824d011072a",
                    iat: 1_698_148_900,
                    aud: "promotional-offer",
                    bid: "com.example.app",
                    nonce: "20fba8a0-2b80-4a7d-a17f-85c1854727f8",
                    productId: "com.example.monthly",
                    offerIdentifier: "WINBACK50",
                    transactionId: "2000000123456789"
                )
        )
        // Without a transaction id the claim is left out, not null.
        let (_, bare, _) = try decoded(
            try jwsSigner.promotionalOffer(productId: "com.example.monthly", offerIdentifier: "WINBACK50")
        )
        #expect(Set(bare.keys) == ["iss", "iat", "aud", "bid", "nonce", "productId", "offerIdentifier"])
        let nonce = try #require(bare["nonce"] as? String)
        #expect(nonce == nonce.lowercased() && UUID(uuidString: nonce) != nil)
    }

    @Test(arguments: [false, true])
    func anIntroductoryOfferEligibilityJWSHasTheDocumentedClaimsAndVerifies(allow: Bool) throws {
        let jws = try jwsSigner.introductoryOfferEligibility(
            productId: "com.example.monthly",
            allowIntroductoryOffer: allow,
            transactionId: "2000000123456789",
            nonce: Self.nonce,
            issuedAt: Date(timeIntervalSince1970: 1_698_148_900)
        )
        let (_, claims, data) = try decoded(jws)
        #expect(
            Set(claims.keys)
                == ["iss", "iat", "aud", "bid", "nonce", "productId", "allowIntroductoryOffer", "transactionId"]
        )
        #expect(String(decoding: data, as: UTF8.self).contains("\"allowIntroductoryOffer\":\(allow)"))
        #expect(
            try JSONDecoder().decode(AppleOfferJWSSigner.Claims.self, from: data)
                == AppleOfferJWSSigner.Claims(
                    iss: "57246542-96fe-1a63-e053-0824d011072a",
                    iat: 1_698_148_900,
                    aud: "introductory-offer-eligibility",
                    bid: "com.example.app",
                    nonce: "20fba8a0-2b80-4a7d-a17f-85c1854727f8",
                    productId: "com.example.monthly",
                    allowIntroductoryOffer: allow,
                    transactionId: "2000000123456789"
                )
        )
    }
}
