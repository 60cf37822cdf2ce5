import Foundation
import HTTPTypes
import MockStores
import MockStoresServer
import OpenCatCore
import OpenCatTesting
import Testing

/// Security issue items 7 and 14: every number in a cassette is bounded, the file size is capped before it is
/// read, and nothing downstream traps on a value that slipped through.
struct CassetteLimitsTests {
    /// ``CassetteTests/valid`` with one interaction replaced.
    static func cassette(interaction: String, expectExtra: String = "") -> String {
        #"""
        {
          "format": "opencat-cassette/1", "store": "stripe", "scenario": "timeout",
          "input": {"kind": "stripePaymentIntent", "token": "pi_1"},
          "interactions": [\#(interaction)],
          "expect": {"outcome": "error", "code": "timeout"\#(expectExtra)}
        }
        """#
    }

    static func error(interaction: String, expectExtra: String = "") -> String? {
        CassetteTests.error(cassette(interaction: interaction, expectExtra: expectExtra))
    }

    @Test(arguments: [
        (#"{"kind": "delay", "seconds": 1e308}"#, "fault.seconds"),
        (#"{"kind": "delay", "seconds": 601}"#, "fault.seconds"),
        (#"{"kind": "delay", "seconds": -1}"#, "fault.seconds"),
        (#"{"kind": "rateLimited", "retryAfter": 9223372036854775807}"#, "fault.retryAfter"),
        (#"{"kind": "rateLimited", "retryAfter": 86401}"#, "fault.retryAfter"),
        (#"{"kind": "serverError", "status": 70000}"#, "fault.status"),
    ])
    func outOfRangeFaultNumbersAreRefusedNamingTheField(fault: String, field: String) {
        let message = Self.error(interaction: #"{"request": {"method": "GET", "path": "/v1/x"}, "fault": \#(fault)}"#)
        #expect(message?.contains("interactions[0].\(field)") == true, "\(message ?? "accepted")")
    }

    @Test func boundaryValuesAreAccepted() {
        #expect(
            Self.error(
                interaction:
                    #"{"request": {"method": "GET", "path": "/v1/x"}, "response": {"status": 200}, "fault": {"kind": "delay", "seconds": 600}, "times": 1000}"#
            ) == nil
        )
        #expect(
            Self.error(
                interaction:
                    #"{"request": {"method": "GET", "path": "/v1/x"}, "fault": {"kind": "rateLimited", "retryAfter": 86400}}"#
            ) == nil
        )
    }

    @Test func timesStatusQuantityAndRepeatAreBounded() {
        let plain = #"{"request": {"method": "GET", "path": "/v1/x"}, "response": {"status": 200}"#
        #expect(Self.error(interaction: plain + #", "times": 1001}"#)?.contains("interactions[0].times") == true)
        #expect(Self.error(interaction: plain + #", "times": 1e30}"#) != nil)
        #expect(
            Self.error(
                interaction:
                    #"{"request": {"method": "GET", "path": "/v1/x"}, "response": {"status": 9223372036854775807}}"#
            )?.contains("response.status") == true
        )
        #expect(
            Self.error(interaction: plain + "}", expectExtra: #", "quantity": 1000001"#)?.contains("expect.quantity")
                == true
        )
        #expect(
            Self.error(interaction: plain + "}", expectExtra: #", "repeat": 1000000000000"#)?.contains("expect.repeat")
                == true
        )
        #expect(Self.error(interaction: plain + "}", expectExtra: #", "repeat": 0"#)?.contains("expect.repeat") == true)
        #expect(Self.error(interaction: plain + "}", expectExtra: #", "repeat": 2"#) == nil)
    }

    /// A cassette built in code skips validation: the server clamps instead of trapping (1e308 seconds used to
    /// crash `Int64(_:)`).
    @Test func serverClampsAHugeDelayBuiltInCodeInsteadOfTrapping() async throws {
        let clock = ManualClock()
        let cassette = MockStoreServerFaultTests.cassette(
            .init(kind: .delay, seconds: 1e308),
            response: .init(status: 70000)
        )
        try await MockStoreServer.withRunningServer(
            cassettes: [cassette],
            clock: clock,
            remoteTime: .sharedClock { clock.advance(by: $0) }
        ) { server in
            let before = clock.currentDate
            let response = try await Loopback.send(.get, server, "/v1/thing")
            #expect(response.status.code == 500)
            #expect(clock.currentDate.timeIntervalSince(before) == Cassette.maximumDelaySeconds)
        }
    }

    @Test func aFileOverTheCapIsRefusedBeforeItIsRead() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-limits-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let big = directory.appendingPathComponent("big.json")
        #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: UInt64(Cassette.maximumFileSize) + 1)  // sparse: no 8 MiB written
        try handle.close()
        let error = #expect(throws: CassetteError.self) { try Cassette.load(from: big, displayName: "big.json") }
        #expect(error?.message.contains("larger than") == true)
        #expect(throws: CassetteError.self) { try Cassette.readFile(at: big) }
        let results = try Cassette.loadEach(in: directory)
        #expect(results.count == 1)
        #expect((try? results[0].get()) == nil)
        #expect(throws: CassetteError.self) {
            try Cassette.decode(Data(count: Cassette.maximumFileSize + 1), file: "x.json")
        }
    }

    @Test func aFileAtTheCapIsRead() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-cap-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        var text = Data(CassetteTests.valid.utf8)
        text.append(Data(repeating: UInt8(ascii: " "), count: Cassette.maximumFileSize - text.count))
        try text.write(to: file)
        #expect(try Cassette.readFile(at: file).count == Cassette.maximumFileSize)
        #expect(try Cassette.load(from: file, variables: ["stripe.secretKey": "sk_test_x"]).store == .stripe)
    }

    /// Security issue item 18: `mock serve --port 70000` used to bind another port.
    @Test func portsOutsideTheTCPRangeAreRefused() async throws {
        for port in [-1, 65536, 70000, Int.max] {
            #expect(throws: MockStoreServerError.invalidPort(port)) { try MockStoreServer.validate(port: port) }
        }
        for port in [0, 8080, 65535] { try MockStoreServer.validate(port: port) }
        let server = MockStoreServer(port: 70000)
        await #expect(throws: MockStoreServerError.invalidPort(70000)) { try await server.start() }
    }

    /// A cassette nested thousands deep is an error naming the file, not a stack overflow.
    @Test(arguments: [600, 100_000])
    func deeplyNestedCassettesAreRefused(depth: Int) {
        let deep = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let message = Self.error(
            interaction:
                #"{"request": {"method": "GET", "path": "/v1/x"}, "response": {"status": 200, "json": \#(deep)}}"#
        )
        #expect(message != nil)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(JSONValue.self, from: Data(deep.utf8)) }
    }
}
