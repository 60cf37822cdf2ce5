import Crypto
import Foundation
import OpenCatConformance
import Testing

/// `opencat store retention apple CALL` against the committed Retention Messaging cassettes: the command sends exactly
/// each cassette's request (none unmatched), signed with the App Store Connect key, and prints Apple's answer.
struct StoreRetentionCLITests {
    static let image = "7E3A5C10-2B4D-4E6F-8A9B-0C1D2E3F4A5B"
    static let message = "3F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9"

    /// The flags every call takes, with the run's key in a file.
    static func credentials(_ credentials: ConformanceCredentials, _ folder: ScratchFolder) throws -> [String] {
        [
            "--bundle-id", "dev.opencat.auralogic", "--issuer-id", credentials.appleIssuerId, "--key-id",
            credentials.appleKeyId, "--key-file",
            try folder.write("key.p8", Data(credentials.appleAPIKey.pemRepresentation.utf8)),
        ]
    }

    @Test func theImageListIsPrintedWithEachImagesState() async throws {
        let (result, unmatched) = try await StoreOperationsCLITests.run("images.json", in: "retention") {
            credentials,
            folder,
            base in
            ["store", "retention", "apple", "images", "--base-url", base + "/production"]
                + (try Self.credentials(credentials, folder))
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""imageIdentifier" : "\#(Self.image)""#))
        #expect(result.standardOutput.contains(#""imageState" : "APPROVED""#))
    }

    @Test func aMessageIsUploadedFromApplesJSONAndAcceptedWithoutABody() async throws {
        let (result, unmatched) = try await StoreOperationsCLITests.run("upload-message.json", in: "retention") {
            credentials,
            folder,
            base in
            let body = """
                {"header": "Before you go", "body": "Keep your streak: a month at half price.",
                 "image": {"imageIdentifier": "\(Self.image)", "altText": "A flame"}, "headerPosition": "ABOVE_IMAGE"}
                """
            return [
                "store", "retention", "apple", "upload-message", "--id", Self.message, "--base-url",
                base + "/production", "--message", try folder.write("message.json", Data(body.utf8)),
            ]
                + (try Self.credentials(credentials, folder))
        }
        #expect(result.status == 0, "\(result.standardError)")
        #expect(unmatched.isEmpty, "\(unmatched)")
        #expect(result.standardOutput.contains(#""accepted" : true"#))
    }

    @Test func aMessageNotApprovedIsRefusedWithApplesCode() async throws {
        let (result, _) = try await StoreOperationsCLITests.run(
            "configure-default-message-not-approved.json",
            in: "retention"
        ) { credentials, folder, base in
            [
                "store", "retention", "apple", "configure-default-message", "--id",
                "3F1E2D3C-4B5A-4978-8695-A4B3C2D1E0FA",
                "--product-id", "dev.opencat.auralogic.pro.monthly", "--locale", "en-US", "--base-url",
                base + "/production",
            ] + (try Self.credentials(credentials, folder))
        }
        #expect(result.status == 2)
        #expect(result.standardError.contains("invalidProof") && result.standardError.contains("(store: 4030017)"))
    }

    @Test func aMessageOverApplesLimitIsRefusedBeforeAnyRequest() async throws {
        let folder = try ScratchFolder()
        let body = #"{"header": "\#(String(repeating: "a", count: 67))", "body": "b"}"#
        let result = try await OpenCatCLI.run([
            "store", "retention", "apple", "upload-message", "--id", Self.message, "--base-url", "http://127.0.0.1:9",
            "--message", try folder.write("message.json", Data(body.utf8)), "--bundle-id", "dev.opencat.auralogic",
            "--issuer-id", "57246542-96fe-1a63-e053-0824d011072a", "--key-id", "2X9R4HXF34", "--key-file",
            try folder.write("key.p8", Data(P256.Signing.PrivateKey().pemRepresentation.utf8)),
        ])
        #expect(result.status == 2)
        #expect(result.standardError.contains("headerTooLong"))
    }
}
