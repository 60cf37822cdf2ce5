import ArgumentParser
import Foundation
import Hummingbird
import LLMKeyResolver
import LLMKeyResolverHTTP
import LLMKeyResolverPostgres
import Logging
import OpenCatCore
import OpenCatServerPostgres
import PostgresNIO

/// `opencat-server llm-keys --host H --port N [--database sqlite:PATH|postgres://…|env:NAME] [--database-tls …]
/// [--jwt-issuer I --jwt-audience A --jwt-max-lifetime S]`: the LLM key API.
struct LLMKeysServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "llm-keys",
        abstract: "Serve GET /api/api-key-status and GET/POST /api/v1/settings/llm-keys.",
        discussion: """
            Master keys come from OPENCAT_LLM_MASTER_KEY, or the file OPENCAT_LLM_MASTER_KEY_FILE names (base64 of 32 \
            bytes, or id=base64 pairs separated by commas, the first the primary), the JWT secret from \
            OPENCAT_LLM_JWT_SECRET (32 bytes or more), system keys from OPENAI_API_KEY, ANTHROPIC_API_KEY and \
            GOOGLE_API_KEY. A token must carry iss and aud as configured (default opencat and llm-keys), exp and iat, \
            and live at most the maximum lifetime (exp - iat, default 86400 s); the flags override \
            OPENCAT_LLM_JWT_ISSUER, OPENCAT_LLM_JWT_AUDIENCE and OPENCAT_LLM_JWT_MAX_LIFETIME. A refused token is \
            answered 401 with its reason. Rows sealed under an older master key are re-sealed at start, in batches. \
            For PostgreSQL, the --database-tls, --database-ca-file, --database-tls-server-name and \
            --database-password-file/--database-password-env flags are those of `serve`.
            """
    )

    @Option(name: .customLong("host"), help: "The address to bind (0.0.0.0: every interface).")
    var host = "127.0.0.1"

    @Option(name: .customLong("port"), help: "The port (0: any free port).")
    var port: Int

    @Option(
        name: .customLong("database"),
        help: "sqlite:PATH (default sqlite:llm-keys.sqlite), postgres://user:pass@host:port/db, or env:NAME"
    )
    var database: String = "sqlite:llm-keys.sqlite"

    @OptionGroup var databaseConnection: DatabaseConnectionOptions

    @OptionGroup var tokenPolicy: LLMTokenPolicyOptions

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port takes 0 to 65535") }
        let database = ServerDatabase.resolve(database)
        guard database.hasPrefix("sqlite:") || database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
        else { throw ValidationError("--database takes sqlite:PATH, postgres://… or env:NAME") }
        try databaseConnection.validate(database: database)
    }

    func run() async throws {
        let cipher = try LLMKeyCipher.load()
        let authenticator = try HS256JWTAuthenticator(
            secret: Secret(try Self.environment("OPENCAT_LLM_JWT_SECRET")),
            policy: try tokenPolicy.policy()
        )
        let logger = Logger(label: "opencat.llm-keys")
        let database = ServerDatabase.resolve(database)
        try await withThrowingTaskGroup(of: Void.self) { group in
            let store: any LLMKeyStore
            if database.hasPrefix("sqlite:") {
                store = try SQLiteLLMKeyStore(
                    fileURL: URL(fileURLWithPath: String(database.dropFirst("sqlite:".count)))
                )
            } else {
                let configuration: PostgresClient.Configuration
                do throws(PostgresConfigurationError) {
                    configuration = try databaseConnection.settings().configuration(url: database)
                } catch {
                    throw ValidationError("--database: \(error.message)")
                }
                let postgres = try PostgresLLMKeyStore(configuration: configuration, logger: logger)
                // The first query waits until the client's run() has begun (PostgresNIO warns otherwise).
                let (started, signal) = AsyncStream.makeStream(of: Void.self)
                group.addTask {
                    signal.finish()
                    await postgres.client.run()
                }
                for await _ in started {}
                await Task.yield()
                try await postgres.migrate()
                store = postgres
            }
            let vault = UserKeyVault(store: store, cipher: cipher)
            let rewrapped = try await vault.rewrap()
            if rewrapped.rewrapped + rewrapped.failed > 0 {
                print(
                    "re-sealed \(rewrapped.rewrapped) rows; \(rewrapped.failed) do not open and were left as they are"
                )
            }
            let api = LLMKeysAPI(
                resolver: LLMKeyResolver(systemKeys: LLMKeyResolver.systemKeys(), vault: vault),
                authenticator: authenticator,
                logger: logger
            )
            let app = api.application(host: host, port: port) { bound in
                FileHandle.standardOutput.write(Data("llm-keys: listening on http://\(host):\(bound)\n".utf8))
            }
            group.addTask { try await app.runService() }
            try await group.next()
            group.cancelAll()
        }
    }

    static func environment(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw ValidationError("set \(name)")
        }
        return value
    }
}

/// The JWT policy flags of `opencat-server llm-keys`: each overrides its environment variable, which overrides the
/// default (``LLMTokenPolicy``).
struct LLMTokenPolicyOptions: ParsableArguments {
    @Option(
        name: .customLong("jwt-issuer"),
        help: "The iss a token must carry (default OPENCAT_LLM_JWT_ISSUER, or opencat)."
    )
    var issuer: String?
    @Option(
        name: .customLong("jwt-audience"),
        help: "The aud a token must name (default OPENCAT_LLM_JWT_AUDIENCE, or llm-keys)."
    )
    var audience: String?
    @Option(
        name: .customLong("jwt-max-lifetime"),
        help: "The longest exp - iat accepted, in seconds (default OPENCAT_LLM_JWT_MAX_LIFETIME, or 86400)."
    )
    var maximumLifetime: Int?

    /// The environment's policy with these flags over it.
    func policy(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> LLMTokenPolicy {
        do throws(LLMKeyError) {
            return try LLMTokenPolicy(
                environment: environment,
                issuer: issuer,
                audience: audience,
                maximumLifetime: maximumLifetime.map { TimeInterval($0) }
            )
        } catch {
            throw ValidationError("the JWT policy: \(error.message)")
        }
    }

    func validate() throws { _ = try policy() }
}
