import Foundation
import MockStores
import OpenCatCore
import OpenCatTesting
import Testing

struct CassetteTests {
    static let valid = #"""
        {
          "format": "opencat-cassette/1",
          "store": "stripe",
          "scenario": "one-time-paid",
          "description": "A one-time PaymentIntent that succeeded.",
          "input": {"kind": "stripePaymentIntent", "token": "pi_3OpenCatPaid001", "productId": "gems_500", "transactionId": null, "context": {}},
          "config": {"secretKey": "{{stripe.secretKey}}", "stripeVersion": "2024-06-20"},
          "interactions": [
            {
              "request": {"method": "GET", "path": "/v1/payment_intents/pi_3OpenCatPaid001", "query": {"expand[]": "latest_charge"},
                          "headers": {"Stripe-Version": "2024-06-20", "X-Key": "{{stripe.secretKey}}"}},
              "response": {"status": 200, "json": {"id": "pi_3OpenCatPaid001", "amount": 500, "status": "succeeded"}}
            },
            {"request": {"method": "GET", "path": "/v1/x"}, "fault": {"kind": "rateLimited", "retryAfter": 2}, "times": 2}
          ],
          "expect": {"outcome": "verified", "state": "active", "productId": "gems_500", "price": {"amount": "5.00", "currency": "USD"}, "finalized": false, "expirationDate": null}
        }
        """#

    static func decode(_ text: String, variables: [String: String] = ["stripe.secretKey": "sk_test_x"]) throws
        -> Cassette
    {
        try Cassette.decode(Data(text.utf8), file: "Fixtures/stripe/paid.json", variables: variables)
    }

    static func error(_ text: String, variables: [String: String] = ["stripe.secretKey": "sk_test_x"]) -> String? {
        do {
            _ = try decode(text, variables: variables)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func aValidCassetteLoadsWithPlaceholdersSubstituted() throws {
        let cassette = try Self.decode(Self.valid)
        #expect(cassette.store == .stripe)
        #expect(cassette.source == "Fixtures/stripe/paid.json")
        #expect(cassette.config["secretKey"] == "sk_test_x")
        #expect(cassette.interactions[0].request.headers?["X-Key"] == "sk_test_x")
        #expect(cassette.interactions[0].request.query?.fields == ["expand[]": ["latest_charge"]])
        #expect(cassette.interactions[1].times == 2)
        #expect(cassette.interactions[1].fault == .rateLimited(retryAfter: 2))
        #expect(cassette.expect.price == .init(amount: "5.00", currency: "USD"))
        #expect(cassette.expect.expirationDate == nil)
        #expect(cassette.expect.additional.isEmpty)
        #expect(cassette.proof.kind == .stripePaymentIntent)
        #expect(cassette.proof.token.revealed == "pi_3OpenCatPaid001")
    }

    @Test func placeholderNamesAreListedWithoutValues() throws {
        let cassette = try Cassette.decode(
            Data(Self.valid.utf8),
            file: "x.json",
            variables: ["stripe.secretKey": "{{stripe.secretKey}}"]
        )
        #expect(cassette.placeholderNames == ["stripe.secretKey"])
    }

    @Test func aCassetteSurvivesAnEncodingRoundTrip() throws {
        let cassette = try Self.decode(Self.valid)
        var decoded = try JSONDecoder().decode(Cassette.self, from: try JSONEncoder().encode(cassette))
        decoded.source = cassette.source
        #expect(decoded == cassette)
    }

    @Test func aWrongTypeNamesTheFileAndTheFieldPath() {
        let text = Self.valid.replacingOccurrences(of: #""status": 200"#, with: #""status": "200""#)
        #expect(Self.error(text) == "Fixtures/stripe/paid.json: interactions[0].response.status: expected an integer")
    }

    @Test func aMissingFieldIsNamed() {
        let text = Self.valid.replacingOccurrences(of: #""method": "GET", "path": "/v1/x""#, with: #""path": "/v1/x""#)
        #expect(Self.error(text) == "Fixtures/stripe/paid.json: interactions[1].request.method: missing required field")
    }

    @Test func anUnknownFieldIsRefused() throws {
        let text = Self.valid.replacingOccurrences(of: #""times": 2"#, with: #""tims": 2"#)
        let message = try #require(Self.error(text))
        #expect(message.hasPrefix("Fixtures/stripe/paid.json: interactions[1].tims: unknown field"))
    }

    @Test func anUnknownPlaceholderIsNamedWithItsField() {
        #expect(
            Self.error(Self.valid, variables: [:])
                == "Fixtures/stripe/paid.json: config.secretKey: unknown placeholder {{stripe.secretKey}}"
        )
    }

    @Test func invalidJSONIsReportedAtTheRoot() throws {
        let message = try #require(Self.error("{ \"format\": "))
        #expect(message.hasPrefix("Fixtures/stripe/paid.json: (root): not valid JSON"))
    }

    @Test(arguments: [
        (#""kind": "rateLimited", "retryAfter": 2"#, #""kind": "explode""#, "interactions[1].fault.kind"),
        (#""kind": "rateLimited", "retryAfter": 2"#, #""kind": "delay""#, "interactions[1].fault.seconds"),
        (
            #""kind": "rateLimited", "retryAfter": 2"#, #""kind": "reset", "status": 503"#,
            "interactions[1].fault.status"
        ),
        (#""outcome": "verified", "state": "active""#, #""outcome": "verified""#, "expect.state"),
        (#""outcome": "verified", "state": "active""#, #""outcome": "maybe", "state": "active""#, "expect.outcome"),
        (#""format": "opencat-cassette/1""#, #""format": "opencat-cassette/2""#, "format"),
        (#""amount": "5.00""#, #""amount": "5,00""#, "expect.price.amount"),
        (#""path": "/v1/x""#, #""path": "/v1/x?a=b""#, "interactions[1].request.path"),
        (#""times": 2"#, #""times": 0"#, "interactions[1].times"),
    ])
    func formatRulesNameTheField(original: String, replacement: String, field: String) throws {
        let text = Self.valid.replacingOccurrences(of: original, with: replacement)
        #expect(text != Self.valid)
        let message = try #require(Self.error(text))
        #expect(message.hasPrefix("Fixtures/stripe/paid.json: \(field): "), "\(message)")
    }

    @Test func loadingFromAFolderSkipsTheCatalogueAndSchemas() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cassettes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("stripe"),
            withIntermediateDirectories: true
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(Self.valid.utf8).write(to: folder.appendingPathComponent("stripe/paid.json"))
        try Data("{}".utf8).write(to: folder.appendingPathComponent("scenarios.json"))
        try Data("{}".utf8).write(to: folder.appendingPathComponent("cassette.schema.json"))
        let cassettes = try Cassette.loadAll(in: folder, variables: ["stripe.secretKey": "sk_test_y"])
        #expect(cassettes.count == 1)
        #expect(cassettes[0].config["secretKey"] == "sk_test_y")
        #expect(cassettes[0].source?.hasSuffix("stripe/paid.json") == true)

        try Data(Self.valid.replacingOccurrences(of: #""status": 200"#, with: #""status": true"#).utf8)
            .write(to: folder.appendingPathComponent("stripe/broken.json"))
        #expect(throws: CassetteError.self) { try Cassette.loadAll(in: folder, variables: ["stripe.secretKey": "k"]) }
        let results = try Cassette.loadEach(in: folder, variables: ["stripe.secretKey": "k"])
        #expect(results.count == 2)
        guard case .failure(let error) = results[0] else {
            Issue.record("broken.json loaded")
            return
        }
        #expect(error.file.hasSuffix("stripe/broken.json"))
        #expect(error.field == "interactions[0].response.status")
        #expect(error.message == "expected an integer")
        if case .failure = results[1] { Issue.record("paid.json failed") }
    }
}
