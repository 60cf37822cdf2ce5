import Foundation
import OpenCatConformance
import Testing
import ToolsTestSupport

/// conformance.html and conformance.junit.xml: the page is self-contained and renders in headless Chromium with a
/// coloured cell for every cell of the report; the JUnit file validates against the common JUnit schema
/// (Tools/ci/junit.xsd, with xmllint). `.ci/run` installs chromium and libxml2-utils.
struct ConformanceReportDocumentsTests {
    static func sample() -> ConformanceReport {
        typealias Cell = ConformanceReport.Cell
        var report = ConformanceReport(
            stores: ["apple", "google", "steam"],
            scenarios: ["one-time-paid", "refunded", "paused"],
            cells: [
                Cell(store: "apple", scenario: "one-time-paid", status: .pass, cassette: "apple/one-time-paid.json"),
                Cell(store: "google", scenario: "one-time-paid", status: .pass),
                Cell(store: "steam", scenario: "one-time-paid", status: .pass),
                Cell(store: "apple", scenario: "refunded", status: .pass),
                Cell(
                    store: "google",
                    scenario: "refunded",
                    status: .fail,
                    detail: "state: expected \"refunded\", found \"active\" <& 'quoted'>\nsecond line"
                ),
                Cell(store: "steam", scenario: "refunded", status: .pass),
                Cell(
                    store: "apple",
                    scenario: "paused",
                    status: .notApplicable,
                    detail: "App Store subscriptions cannot be paused."
                ),
                Cell(store: "google", scenario: "paused", status: .pass),
                Cell(
                    store: "steam",
                    scenario: "paused",
                    status: .notApplicable,
                    detail: "Steam agreements are not paused."
                ),
            ],
            invalidCassettes: [],
            durationMilliseconds: 420
        )
        report.startedAt = "2026-11-23T16:00:00Z"
        report.versions = ["OpenCatCore": "0.1.0", "StoreAdapters": "0.1.0"]
        let section = ConformanceReport(
            stores: ["chippipay"],
            scenarios: ["completed", "timeout"],
            cells: [
                Cell(store: "chippipay", scenario: "completed", status: .pass),
                Cell(store: "chippipay", scenario: "timeout", status: .pass),
            ],
            invalidCassettes: [],
            durationMilliseconds: 80
        )
        report.sections = [.init(title: "ChippiPay", report: section)]
        return report
    }

    static let root = TestEnvironment.repositoryRoot

    struct Run {
        var status: Int32
        var output: String
    }

    /// Runs a program (found on `PATH`) to its end without blocking a thread; output and error together.
    static func run(_ executable: String, _ arguments: [String]) async throws -> Run {
        let result = try await runProcess(executable, arguments)
        return Run(status: result.status, output: result.output + result.error)
    }

    /// A program the test needs, or a failure at once naming its package and the command that installs it.
    static func tool(_ name: String, package: String) throws {
        _ = try TestEnvironment.executable(name, package: package)
    }

    @Test func aQuoteWithACombiningMarkIsStillEscaped() {
        let combining = String(UnicodeScalar(0x301)!)
        let hostile = "\"" + combining + " onmouseover=alert(1) x=\""
        let html = ConformanceReport(
            stores: ["s"],
            scenarios: ["x"],
            cells: [.init(store: "s", scenario: "x", status: .fail, detail: hostile)],
            invalidCassettes: [],
            durationMilliseconds: 1
        ).renderHTML()
        let raw = "\"" + combining + " onmouseover"
        let escaped = "&quot;" + combining + " onmouseover"
        #expect(!html.contains(raw))
        #expect(html.contains(escaped))
    }

    @Test func writesAllFourDocuments() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-report-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.sample().write(to: folder)
        for name in ["conformance.json", "conformance.md", "conformance.html", "conformance.junit.xml"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path))
        }
    }

    @Test func theJUnitFileValidatesAgainstTheCommonSchema() async throws {
        try Self.tool("xmllint", package: "libxml2-utils")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-junit-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let xml = Self.sample().renderJUnit()
        let file = folder.appendingPathComponent("conformance.junit.xml")
        try Data(xml.utf8).write(to: file)
        let schema = Self.root.appendingPathComponent("Tools/ci/junit.xsd").path
        let valid = try await Self.run("xmllint", ["--noout", "--schema", schema, file.path])
        #expect(valid.status == 0, "\(valid.output)")
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 11)
        #expect(xml.components(separatedBy: "<skipped ").count - 1 == 2)
        #expect(
            xml.contains(
                #"<failure message="state: expected &quot;refunded&quot;, found &quot;active&quot; &lt;&amp; &apos;quoted&apos;&gt;""#
            )
        )
        #expect(xml.contains(#"tests="11" failures="1" errors="0" skipped="2""#))
        // The schema is not a formality: a test case without its name is refused.
        let broken = folder.appendingPathComponent("broken.xml")
        try Data(xml.replacingOccurrences(of: #"name="paused""#, with: "").utf8).write(to: broken)
        #expect(try await Self.run("xmllint", ["--noout", "--schema", schema, broken.path]).status != 0)
    }

    @Test func thePageIsSelfContainedAndRendersEveryCellInChromium() async throws {
        try Self.tool("chromium", package: "chromium")
        try Self.tool("python3", package: "python3")
        let report = Self.sample()
        let html = report.renderHTML()
        for external in ["src=", "href=", "url(", "@import", "<link", "<script", "http://", "https://"] {
            #expect(!html.contains(external), "\(external)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-html-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("conformance.html")
        try Data(html.utf8).write(to: page)
        let common = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]
        let dom = try await Self.run("chromium", common + ["--dump-dom", page.absoluteString])
        #expect(dom.status == 0)
        let cells = report.cells.count + report.sections.reduce(0) { $0 + $1.report.cells.count }
        #expect(dom.output.components(separatedBy: "data-cell=").count - 1 == cells)
        #expect(dom.output.components(separatedBy: #"data-status="fail""#).count - 1 == 1)
        let screenshot = folder.appendingPathComponent("page.png")
        let shot = try await Self.run(
            "chromium",
            common + ["--window-size=1200,900", "--screenshot=\(screenshot.path)", page.absoluteString]
        )
        #expect(shot.status == 0, "\(shot.output)")
        // Count the pass-green and fail-red pixels: a blank or unstyled page has none.
        let analysis = try await Self.run("python3", ["-c", Self.pngColourCount, screenshot.path])
        let counts = analysis.output.split(separator: " ").compactMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(counts.count == 3, "\(analysis.output)")
        if counts.count == 3 {
            #expect(counts[0] > 500, "green pixels")
            #expect(counts[1] > 100, "red pixels")
            #expect(counts[2] > 10_000, "pixels that are not white")
        }
    }

    /// Decodes an 8-bit RGB/RGBA PNG with the standard library and prints: green cells' pixels, red cells' pixels,
    /// non-white pixels.
    static let pngColourCount = """
        import sys, zlib, struct
        data = open(sys.argv[1], 'rb').read()
        assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
        pos, idat, width, height, kind = 8, b'', 0, 0, 0
        while pos < len(data):
            length, tag = struct.unpack('>I4s', data[pos:pos + 8])
            chunk = data[pos + 8:pos + 8 + length]
            if tag == b'IHDR':
                width, height, depth, kind = struct.unpack('>IIBB', chunk[:10])
                assert depth == 8 and kind in (2, 6)
            elif tag == b'IDAT':
                idat += chunk
            pos += 12 + length
        raw, size = zlib.decompress(idat), (3 if kind == 2 else 4)
        stride, rows, previous, i = width * size, [], bytearray(width * size), 0
        for _ in range(height):
            f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
            for x in range(stride):
                a = line[x - size] if x >= size else 0
                b = previous[x]; c = previous[x - size] if x >= size else 0
                if f == 1: line[x] = (line[x] + a) & 255
                elif f == 2: line[x] = (line[x] + b) & 255
                elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
                elif f == 4:
                    p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            rows.append(line); previous = line
        green = red = other = 0
        for line in rows:
            for x in range(0, stride, size):
                r, g, b = line[x], line[x + 1], line[x + 2]
                if abs(r - 0x34) < 12 and abs(g - 0xc7) < 12 and abs(b - 0x59) < 12: green += 1
                elif abs(r - 0xff) < 12 and abs(g - 0x3b) < 12 and abs(b - 0x30) < 12: red += 1
                if (r, g, b) != (255, 255, 255): other += 1
        print(green, red, other)
        """
}
