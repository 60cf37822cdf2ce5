import Crypto
import Foundation
import OpenCatCore
import OpenCatServer
import OpenCatServerPostgres
import OpenCatTesting
import PostgresNIO
import Testing
import ToolsTestSupport

/// ``PostgresConnectionSettings``: the one builder of the server's PostgreSQL configuration (the ledger's and the LLM
/// key store's). No TLS-enabled PostgreSQL is needed: the configurations are inspected, never connected.
struct PostgresTLSConfigurationTests {
    static let urlPassword = "Url-Pa55word-Never-Shown"
    static let url = "postgres://opencat:\(urlPassword)@db.internal:5433/ledger"

    /// A fresh folder for one test's files.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("opencat-pgtls-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A file with text in it, at a mode.
    static func write(_ text: String, to file: URL, mode: Int = 0o600) throws {
        try Data(text.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
    }

    /// A CA certificate as PEM (the mock Apple root: any self-signed certificate does).
    static func pem() throws -> (text: String, der: Data) {
        let der = try MockAppleCA().rootCertificateDER
        let base64 = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return ("-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n", der)
    }

    /// The case of PostgresNIO's TLS setting (`disable`, `prefer`, `require`): its enum is not public, so read it
    /// through reflection.
    static func mode(_ tls: PostgresClient.Configuration.TLS) -> String {
        guard let base = Mirror(reflecting: tls).children.first(where: { $0.label == "base" })?.value else {
            return "?"
        }
        return Mirror(reflecting: base).children.first?.label ?? String(describing: base)
    }

    /// The error a body throws (nil: none, or not a ``PostgresConfigurationError``).
    func refusal(_ body: () throws -> Void) -> PostgresConfigurationError? {
        do {
            try body()
            return nil
        } catch {
            return error as? PostgresConfigurationError
        }
    }

    @Test func eachModeMapsToPostgresNIOsTLS() throws {
        let disabled = try PostgresConnectionSettings().configuration(url: Self.url)
        #expect(Self.mode(disabled.tls) == "disable")
        #expect(try PostgresConnectionSettings().tlsConfiguration() == nil)
        #expect(disabled.host == "db.internal" && disabled.port == 5433 && disabled.username == "opencat")
        #expect(disabled.database == "ledger" && disabled.password == Self.urlPassword)  // local development

        for mode in [PostgresTLSMode.prefer, .require] {
            let settings = PostgresConnectionSettings(tls: mode)
            let configuration = try settings.configuration(url: Self.url)
            #expect(Self.mode(configuration.tls) == mode.rawValue)
            let tls = try #require(try settings.tlsConfiguration())
            #expect(tls.certificateVerification == .fullVerification)
            #expect(tls.trustRoots == .default)
            #expect(configuration.options.tlsServerName == nil)  // PostgresNIO checks the URL's host
        }
        // The text forms the flags take.
        #expect(try PostgresConnectionSettings(tls: "require").tls == .require)
        #expect(refusal { _ = try PostgresConnectionSettings(tls: "verify-full") }?.code == .invalidTLSMode)
    }

    @Test func aCABundleAndAServerNameAreUsed() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (pem, der) = try Self.pem()
        let ca = folder.appendingPathComponent("ca.pem")
        try Self.write(pem, to: ca, mode: 0o644)
        let settings = PostgresConnectionSettings(tls: .require, caFile: ca.path, serverName: "postgres.example.com")
        let configuration = try settings.configuration(url: Self.url)
        #expect(Self.mode(configuration.tls) == "require")
        #expect(configuration.options.tlsServerName == "postgres.example.com")
        let tls = try #require(try settings.tlsConfiguration())
        #expect(tls.trustRoots == .certificates([try NIOSSLCertificate(bytes: Array(der), format: .der)]))
        #expect(tls.certificateVerification == .fullVerification)
    }

    @Test func aMissingOrInvalidCAFileIsATypedErrorWithoutThePassword() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("missing.pem").path
        let unreadable = refusal {
            _ = try PostgresConnectionSettings(tls: .require, caFile: missing).configuration(url: Self.url)
        }
        #expect(unreadable?.code == .caFileUnreadable)
        #expect(unreadable?.message.contains(missing) == true)
        let notPEM = folder.appendingPathComponent("not.pem")
        try Self.write("not a certificate\n", to: notPEM)
        let invalid = refusal {
            _ = try PostgresConnectionSettings(tls: .prefer, caFile: notPEM.path).configuration(url: Self.url)
        }
        #expect(invalid?.code == .caFileInvalid)
        // A CA file (or a server name) with TLS off is a mistake, refused.
        #expect(
            refusal { _ = try PostgresConnectionSettings(tls: .disable, caFile: missing).tlsConfiguration() }?.code
                == .conflictingOptions
        )
        #expect(
            refusal { _ = try PostgresConnectionSettings(tls: "disable", serverName: "db") }?.code
                == .conflictingOptions
        )
        for failure in [unreadable, invalid] {
            let text = String(describing: failure)
            #expect(!text.contains(Self.urlPassword))
        }
    }

    @Test func thePasswordComesFromAFileOrAVariableOverTheURLs() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("db-password")
        try Self.write("from-the-file pass\n", to: file)
        let fromFile = try PostgresConnectionSettings(tls: .require, password: .file(file.path))
            .configuration(url: Self.url)
        #expect(fromFile.password == "from-the-file pass")
        let fromFlags = try PostgresConnectionSettings(tls: "disable", passwordFile: file.path)
        #expect(fromFlags.password == .file(file.path))
        let fromVariable = try PostgresConnectionSettings(password: .environment("DB_PASSWORD"))
            .configuration(url: "postgres://opencat@db/ledger", environment: ["DB_PASSWORD": "from-the-variable"])
        #expect(fromVariable.password == "from-the-variable")

        // Refusals: a file others can read, a missing file, an empty one, an unset variable, both sources at once.
        let shared = folder.appendingPathComponent("shared-password")
        try Self.write("shared-secret-pw\n", to: shared, mode: 0o644)
        let empty = folder.appendingPathComponent("empty-password")
        try Self.write("\n", to: empty)
        var failures: [PostgresConfigurationError] = []
        for source in [shared.path, folder.appendingPathComponent("none").path, empty.path] {
            let failure = refusal {
                _ = try PostgresConnectionSettings(password: .file(source)).configuration(url: Self.url)
            }
            #expect(failure?.code == .passwordFileUnreadable)
            failures += failure.map { [$0] } ?? []
        }
        let unset = refusal {
            _ = try PostgresConnectionSettings(password: .environment("DB_PASSWORD"))
                .configuration(url: Self.url, environment: [:])
        }
        #expect(unset?.code == .passwordVariableUnset && unset?.message.contains("DB_PASSWORD") == true)
        failures += unset.map { [$0] } ?? []
        let both = refusal {
            _ = try PostgresConnectionSettings(tls: "disable", passwordFile: "f", passwordVariable: "V")
        }
        #expect(both?.code == .conflictingOptions)
        for failure in failures {
            let text = "\(failure) \(failure.message)"
            #expect(!text.contains("shared-secret-pw") && !text.contains(Self.urlPassword))
        }
    }

    @Test func aBadURLIsNamedByWhatItLacksNeverByItsPassword() throws {
        for url in [
            "mysql://opencat:\(Self.urlPassword)@db/ledger",
            "postgres://opencat:\(Self.urlPassword)@db",
            "postgres://:\(Self.urlPassword)@db/ledger",
            "postgres://opencat:\(Self.urlPassword)@/ledger",
            "not a url \(Self.urlPassword)",
        ] {
            let failure = refusal { _ = try PostgresConnectionSettings(tls: .require).configuration(url: url) }
            #expect(failure?.code == .invalidURL)
            let text = "\(String(describing: failure)) \(failure?.message ?? "")"
            #expect(!text.contains(Self.urlPassword))
            // The ledger's own entry point (tests, benchmarks) goes through the same builder.
            let ledger = #expect(throws: LedgerError.self) {
                _ = try PostgresLedgerStore.client(url: url, logger: Logger(label: "tests"))
            }
            let ledgerText = String(describing: ledger)
            #expect(ledger?.code == .invalidInput && !ledgerText.contains(Self.urlPassword))
        }
        let lacking = refusal { _ = try PostgresConnectionSettings().configuration(url: "postgres://db") }
        #expect(lacking?.message.contains("user, database") == true)
    }

    /// The flags as an operator types them: refused before the server starts, the URL's password never printed.
    @Test func theServeCommandsTakeTheFlags() async throws {
        let server = TestEnvironment.builtProduct("opencat-server").path
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try await runProcess(
            server,
            [
                "--port", "0", "--database", "sqlite:" + folder.appendingPathComponent("l.sqlite").path,
                "--database-tls", "require",
            ],
            timeout: .seconds(60)
        )
        #expect(sqlite.status != 0 && sqlite.error.contains("apply to a postgres:// database"))
        let badMode = try await runProcess(
            server,
            ["--port", "0", "--database", Self.url, "--database-tls", "verify-full"],
            timeout: .seconds(60)
        )
        #expect(badMode.status != 0 && badMode.error.contains("disable, prefer or require"))
        let missingCA = folder.appendingPathComponent("missing-ca.pem").path
        for arguments in [
            ["--port", "0", "--database", Self.url],
            ["llm-keys", "--port", "0", "--database", Self.url],
        ] {
            let result = try await runProcess(
                server,
                arguments + ["--database-tls", "require", "--database-ca-file", missingCA],
                environment: [
                    "OPENCAT_LLM_MASTER_KEY": Data(repeating: 7, count: 32).base64EncodedString(),
                    "OPENCAT_LLM_JWT_SECRET": String(repeating: "s", count: 32),
                ],
                timeout: .seconds(60)
            )
            #expect(result.status != 0 && result.error.contains("missing-ca.pem"))
            #expect(!(result.output + result.error).contains(Self.urlPassword))
        }
        let lifetime = try await runProcess(
            server,
            ["llm-keys", "--port", "0", "--jwt-max-lifetime", "0"],
            timeout: .seconds(60)
        )
        #expect(lifetime.status != 0 && lifetime.error.contains("maximum lifetime"))
    }

    /// `opencat-server llm-keys` on the tests' PostgreSQL (which offers no TLS): the URL without its password, the
    /// password from an owner-only file, `--database-tls prefer` falling back to plain TCP; its tokens checked for
    /// issuer and audience.
    @Test func llmKeysReachesPostgreSQLWithThePasswordFromAFile() async throws {
        var components = try #require(URLComponents(string: try TestEnvironment.postgresURL()))
        let password = try #require(components.password)
        components.password = nil
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("db-password")
        try Self.write(password + "\n", to: file)
        let secret = "llm-keys-process-test-secret-0123456789"
        func token(aud: String) -> String {
            let now = Int(Date().timeIntervalSince1970)
            let payload =
                #"{"aud":"\#(aud)","exp":\#(now + 600),"iat":\#(now),"iss":"opencat","plan_tier":"pro","sub":"p1"}"#
            let input =
                Base64URL.encode(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "."
                + Base64URL.encode(Data(payload.utf8))
            let mac = HMAC<SHA256>.authenticationCode(
                for: Data(input.utf8),
                using: SymmetricKey(data: Data(secret.utf8))
            )
            return input + "." + Base64URL.encode(Data(mac))
        }
        try await withServerProcess(
            TestEnvironment.builtProduct("opencat-server").path,
            [
                "llm-keys", "--port", "0", "--database", try #require(components.string), "--database-tls", "prefer",
                "--database-password-file", file.path,
            ],
            environment: [
                "OPENCAT_LLM_MASTER_KEY": Data(repeating: 7, count: 32).base64EncodedString(),
                "OPENCAT_LLM_JWT_SECRET": secret,
            ]
        ) { _, port in
            let url = "http://127.0.0.1:\(port)/api/api-key-status"
            let (ok, body, _) = try await ServerProcessTests.get(
                url,
                headers: ["Authorization": "Bearer " + token(aud: "llm-keys")]
            )
            #expect(ok == 200 && body.contains("using_system_keys"))
            let wrong = token(aud: "another-api")
            let (refused, reason, _) = try await ServerProcessTests.get(
                url,
                headers: ["Authorization": "Bearer " + wrong]
            )
            #expect(refused == 401 && reason.contains("wrongAudience") && !reason.contains(wrong))
        }
    }
}
