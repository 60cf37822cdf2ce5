import ArgumentParser
import Foundation
import Testing

@testable import opencat

/// The command-line parts of security issue items 2 and 18: usage errors exit 64 (EX_USAGE) with a message.
struct CommandValidationTests {
    @Test(arguments: ["70000", "65536", "-1", "9223372036854775807"])
    func mockServeRefusesAPortOutsideTheTCPRange(port: String) {
        do {
            _ = try MockServe.parse(["--port=\(port)"])
            Issue.record("--port \(port) was accepted")
        } catch {
            #expect(MockServe.exitCode(for: error) == .validationFailure)
            #expect(MockServe.message(for: error).contains("0...65535"))
        }
    }

    @Test(arguments: ["0", "8080", "65535"])
    func mockServeAcceptsAValidPort(port: String) throws {
        #expect(try MockServe.parse(["--port", port]).port == Int(port))
    }

    @Test(arguments: ["", "   \n", "whsec_short", "sk_test_notAWebhookSecret0123456789"])
    func stripeWebhookWithAnUnusableSecretFileExitsWithAUsageError(secret: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = directory.appendingPathComponent("secret").path
        let payloadFile = directory.appendingPathComponent("payload.json").path
        #expect(FileManager.default.createFile(atPath: secretFile, contents: Data(secret.utf8)))
        #expect(FileManager.default.createFile(atPath: payloadFile, contents: Data(#"{"id":"evt_1"}"#.utf8)))
        // Refused before any signature is looked at: the verifier cannot even be built.
        let command = try VerifyStripeWebhook.parse([
            "--secret-file", secretFile, "--signature", "t=1,v1=00", "--payload", payloadFile, "--now", "1",
        ])
        do {
            try await command.run()
            Issue.record("an unusable secret was accepted")
        } catch {
            #expect(VerifyStripeWebhook.exitCode(for: error) == .validationFailure)
            #expect(VerifyStripeWebhook.message(for: error).contains("webhook signing secret"))
        }
    }
}
