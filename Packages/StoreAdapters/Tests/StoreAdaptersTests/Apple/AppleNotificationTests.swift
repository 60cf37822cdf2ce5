import Foundation
import OpenCatCore
import OpenCatTesting
import StoreAdapters
import Testing

struct AppleNotificationTests {
    static let chain = try! TestAppleChain()

    private func adapter(
        environment: VerifiedPurchase.Environment? = nil,
        appAppleId: Int64? = nil,
        now: Date = AppleTestValues.signedDate.addingTimeInterval(3_600)
    ) -> AppleStoreAdapter {
        AppleStoreAdapter(
            configuration: .init(
                bundleId: AppleTestValues.bundleId,
                rootCertificates: [Self.chain.root],
                environment: environment,
                appAppleId: appAppleId,
                httpClient: .scripted(
                    ScriptedTransport(),
                    clock: ManualClock(start: now, autoAdvance: true, holdsDuringExternalWork: true)
                )
            )
        )
    }

    private func notification(
        type: String = "DID_FAIL_TO_RENEW",
        subtype: String? = "GRACE_PERIOD",
        environment: String = "Production",
        bundleId: String = AppleTestValues.bundleId,
        appAppleId: Int64? = 1_234_567_890,
        transaction: String? = nil,
        renewalInfo: String? = nil,
        status: Int32? = 4
    ) -> ResponseBodyV2DecodedPayload {
        ResponseBodyV2DecodedPayload(
            rawNotificationType: type,
            rawSubtype: subtype,
            notificationUUID: "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6",
            data: .init(
                rawEnvironment: environment,
                appAppleId: appAppleId,
                bundleId: bundleId,
                bundleVersion: "1.0",
                signedTransactionInfo: transaction.map(Secret.init),
                signedRenewalInfo: renewalInfo.map(Secret.init),
                rawStatus: status
            ),
            version: "2.0",
            signedDate: AppleTestValues.signedDate
        )
    }

    /// A notification's JSON with the nested JWS in clear (Secret encodes a placeholder, so build it by hand).
    private func sign(_ payload: ResponseBodyV2DecodedPayload, transaction: String?, renewalInfo: String?) throws
        -> String
    {
        var object = try #require(
            try JSONSerialization.jsonObject(with: try JSONEncoder().encode(payload)) as? [String: Any]
        )
        var data = object["data"] as? [String: Any] ?? [:]
        data["signedTransactionInfo"] = transaction
        data["signedRenewalInfo"] = renewalInfo
        object["data"] = data
        return try Self.chain.signRaw(
            payloadJSON: try JSONSerialization.data(withJSONObject: object),
            x5c: try Self.chain.x5c()
        )
    }

    @Test func aNotificationAndTheTransactionAndRenewalItCarriesAreVerified() async throws {
        let transaction = try Self.chain.sign(AppleTestValues.transaction())
        let grace = AppleTestValues.signedDate.addingTimeInterval(7 * 86_400)
        let renewal = try Self.chain.sign(
            AppleTestValues.renewalInfo(isInBillingRetryPeriod: true, gracePeriodExpiresDate: grace)
        )
        let signedPayload = try sign(notification(), transaction: transaction, renewalInfo: renewal)

        let verified = try await adapter(now: AppleTestValues.signedDate.addingTimeInterval(2 * 86_400))
            .verifyNotification(signedPayload: Secret(signedPayload))

        #expect(verified.payload.notificationType == .didFailToRenew)
        #expect(verified.payload.subtype == .gracePeriod)
        #expect(verified.environment == .production)
        #expect(verified.transaction?.transactionId == "2000000123456789")
        #expect(verified.renewalInfo?.gracePeriodExpiresDate == grace)
        #expect(verified.purchase?.state == .gracePeriod)
        #expect(verified.purchase?.storeStatus == "4")
        #expect(verifiedSecretsStayHidden(verified, transaction))
    }

    private func verifiedSecretsStayHidden(_ verified: VerifiedAppStoreNotification, _ jws: String) -> Bool {
        !String(describing: verified).contains(jws)
    }

    @Test func theRawPostBodyIsAccepted() async throws {
        let signedPayload = try sign(
            notification(type: "TEST", subtype: nil, status: nil),
            transaction: nil,
            renewalInfo: nil
        )
        let body = Data(#"{"signedPayload":"\#(signedPayload)"}"#.utf8)
        let verified = try await adapter().verifyNotification(body: body)
        #expect(verified.payload.notificationType == .test)
        #expect(verified.transaction == nil)
        #expect(verified.purchase == nil)

        let garbage = await appleStoreError { try await adapter().verifyNotification(body: Data("{}".utf8)) }
        #expect(garbage?.code == .invalidProof)
    }

    @Test func aRefundNotificationYieldsARefundedPurchase() async throws {
        let transaction = try Self.chain.sign(AppleTestValues.transaction(revocationDate: AppleTestValues.signedDate))
        let signedPayload = try sign(
            notification(type: "REFUND", subtype: nil, status: 5),
            transaction: transaction,
            renewalInfo: nil
        )
        let verified = try await adapter().verifyNotification(signedPayload: Secret(signedPayload))
        #expect(verified.payload.notificationType == .refund)
        #expect(verified.purchase?.state == .refunded)
    }

    @Test func aNotificationForAnotherBundleIdIsWrongApplication() async throws {
        let signedPayload = try sign(notification(bundleId: "com.example.wrong"), transaction: nil, renewalInfo: nil)
        let error = await appleStoreError {
            try await adapter().verifyNotification(signedPayload: Secret(signedPayload))
        }
        #expect(error?.code == .wrongApplication)
        #expect(error?.storeReason == "bundleIdMismatch")
    }

    @Test func aSandboxNotificationIsRejectedByAProductionOnlyAdapter() async throws {
        let signedPayload = try sign(notification(environment: "Sandbox"), transaction: nil, renewalInfo: nil)
        let error = await appleStoreError {
            try await adapter(environment: .production).verifyNotification(signedPayload: Secret(signedPayload))
        }
        #expect(error?.code == .wrongApplication)
        #expect(error?.storeReason == "environmentMismatch")
    }

    @Test func aProductionNotificationForAnotherAppAppleIdIsWrongApplication() async throws {
        let signedPayload = try sign(notification(appAppleId: 42), transaction: nil, renewalInfo: nil)
        let error = await appleStoreError {
            try await adapter(appAppleId: 1_234_567_890).verifyNotification(signedPayload: Secret(signedPayload))
        }
        #expect(error?.code == .wrongApplication)
        #expect(error?.storeReason == "appAppleIdMismatch")
    }

    @Test func aForgedTransactionInsideAGenuineNotificationIsInvalidProof() async throws {
        let impostor = try TestAppleChain()
        let forged = try impostor.sign(AppleTestValues.transaction(), x5c: try Self.chain.x5c())
        let signedPayload = try sign(notification(), transaction: forged, renewalInfo: nil)
        let error = await appleStoreError {
            try await adapter().verifyNotification(signedPayload: Secret(signedPayload))
        }
        #expect(error?.code == .invalidProof)
        #expect(error?.storeReason == "invalidSignature")
    }

    @Test func aTransactionOfAnotherAppInsideANotificationIsWrongApplication() async throws {
        let transaction = try Self.chain.sign(AppleTestValues.transaction(bundleId: "com.example.other"))
        let signedPayload = try sign(notification(), transaction: transaction, renewalInfo: nil)
        let error = await appleStoreError {
            try await adapter().verifyNotification(signedPayload: Secret(signedPayload))
        }
        #expect(error?.code == .wrongApplication)
    }

    @Test func summaryAndExternalPurchaseTokenNotificationsAreCheckedForTheirApp() async throws {
        let summary = ResponseBodyV2DecodedPayload(
            rawNotificationType: "RENEWAL_EXTENSION",
            rawSubtype: "SUMMARY",
            summary: .init(
                rawEnvironment: "Sandbox",
                bundleId: AppleTestValues.bundleId,
                productId: "p",
                succeededCount: 3,
                failedCount: 0
            ),
            version: "2.0",
            signedDate: AppleTestValues.signedDate
        )
        let verifiedSummary = try await adapter().verifyNotification(
            signedPayload: Secret(try Self.chain.sign(summary))
        )
        #expect(verifiedSummary.environment == .sandbox)
        #expect(verifiedSummary.payload.summary?.succeededCount == 3)

        let token = ResponseBodyV2DecodedPayload(
            rawNotificationType: "EXTERNAL_PURCHASE_TOKEN",
            rawSubtype: "UNREPORTED",
            externalPurchaseToken: .init(externalPurchaseId: "SANDBOX_1", bundleId: "com.example.other"),
            signedDate: AppleTestValues.signedDate
        )
        let error = await appleStoreError {
            try await adapter().verifyNotification(signedPayload: Secret(try Self.chain.sign(token)))
        }
        #expect(error?.code == .wrongApplication)
    }
}
