import Foundation
import MockStores
import OpenCatConformance
import OpenCatTesting
import Testing

/// The suite checks everything a cassette says: every expected field, every interaction used, no unknown key.
struct ConformanceExpectationTests {
    /// Runs one committed cassette after `edit` changed its JSON, and returns the cell (or the invalid message).
    private func run(
        _ store: String,
        _ scenario: String,
        edit: (inout [String: Any]) -> Void
    ) async throws -> (cell: ConformanceReport.Cell?, invalid: [String]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "opencat-expect-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = try Data(
            contentsOf: ConformanceFixtures.folder().appendingPathComponent("\(store)/\(scenario).json")
        )
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object.removeValue(forKey: "$schema")
        edit(&object)
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            .write(to: folder.appendingPathComponent("\(scenario).json"))
        let suite = try ConformanceSuite(
            catalogue: ConformanceFixtures.catalogue(),
            cassetteFolders: [folder],
            stores: [store],
            scenarios: [scenario]
        )
        let report = await suite.run()
        return (report.cell(store: store, scenario: scenario), report.invalidCassettes)
    }

    private func expecting(_ key: String, _ value: Any) -> (inout [String: Any]) -> Void {
        { object in
            var expect = object["expect"] as? [String: Any] ?? [:]
            expect[key] = value
            object["expect"] = expect
        }
    }

    @Test func theUneditedCassettePasses() async throws {
        let result = try await run("stripe", "one-time-paid") { _ in }
        #expect(result.cell?.status == .pass, "\(result.cell?.detail ?? "")")
    }

    @Test func anExtraUnusedInteractionFails() async throws {
        let result = try await run("stripe", "one-time-paid") { object in
            var interactions = object["interactions"] as? [Any] ?? []
            interactions.append([
                "request": ["method": "GET", "path": "/v1/charges/ch_never"],
                "response": ["status": 200, "json": ["id": "ch_never"]],
            ])
            object["interactions"] = interactions
        }
        #expect(result.cell?.status == .fail)
        #expect(result.cell?.detail?.contains("unused interaction") == true)
        #expect(result.cell?.detail?.contains("/v1/charges/ch_never") == true)
    }

    @Test(arguments: [
        ("refundedAmount", #"{"amount": "9.99", "currency": "USD"}"#, "refundedAmount: expected 9.99 USD, got nil"),
        ("purchaseDate", #""2025-11-22T08:26:40.001Z""#, "purchaseDate: expected 2025-11-22T08:26:40.001Z"),
        ("expirationDate", #""2030-01-01T00:00:00Z""#, "expirationDate: expected 2030-01-01T00:00:00.000Z, got nil"),
        ("willRenew", "true", "willRenew: expected true, got false"),
        ("purchaser", #""someone-else""#, "purchaser: expected someone-else"),
        ("price", #"{"amount": "5.01", "currency": "USD"}"#, "price: expected 5.01 USD, got 5.00 USD"),
    ])
    func aWrongExpectationFails(key: String, json: String, message: String) async throws {
        let value = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        let result = try await run("stripe", "one-time-paid", edit: expecting(key, value))
        #expect(result.cell?.status == .fail)
        #expect(result.cell?.detail?.contains(message) == true, "\(result.cell?.detail ?? "no detail")")
    }

    @Test func theRightFieldsPassToTheMillisecond() async throws {
        // The PaymentIntent was created at 1763800000 (2025-11-22T08:26:40Z) for 5.00 USD, nothing refunded.
        let result = try await run("stripe", "one-time-paid") { object in
            for (key, value) in [
                ("purchaseDate", "2025-11-22T08:26:40.000Z"), ("store", "stripe"),
            ] as [(String, Any)] {
                self.expecting(key, value)(&object)
            }
            self.expecting("willRenew", false)(&object)
            self.expecting("price", ["amount": "5.00", "currency": "USD"])(&object)
        }
        #expect(result.cell?.status == .pass, "\(result.cell?.detail ?? "")")
    }

    @Test func anUnknownExpectKeyMakesTheCassetteInvalid() async throws {
        let result = try await run("stripe", "one-time-paid", edit: expecting("refundAmount", "9.99"))
        let message = try #require(result.invalid.first)
        #expect(message.contains("expect.refundAmount"))
        #expect(message.contains("unknown expectation"))
    }
}
