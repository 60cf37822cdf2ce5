import ArgumentParser
import Foundation
import Hummingbird
import LLMKeyResolver
import LLMKeyResolverHTTP
import LLMKeyResolverPostgres
import Logging
import OpenCatCore
import PostgresNIO

/// `opencat llm-keys`: run the LLM key API, mint tokens to try it.
struct LLMKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "llm-keys",
        abstract: "Serve the LLM key API (status, settings) on 127.0.0.1, or mint a token for it.",
        subcommands: [LLMKeysServe.self, LLMKeysToken.self]
    )

    static func environment(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw ValidationError("set \(name)")
        }
        return value
    }
}

/// `opencat llm-keys serve --port N [--database sqlite:PATH|postgres://…]`.
struct LLMKeysServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve GET /api/api-key-status and GET/POST /api/v1/settings/llm-keys on 127.0.0.1.",
        discussion: """
            Master keys come from OPENCAT_LLM_MASTER_KEY, or the file OPENCAT_LLM_MASTER_KEY_FILE names (base64 of 32 \
            bytes, or id=base64 pairs separated by commas, the first the primary), the JWT secret from OPENCAT_LLM_JWT_SECRET (32 bytes or more), system keys from \
            OPENAI_API_KEY, ANTHROPIC_API_KEY and GOOGLE_API_KEY. Rows sealed under an older master key are re-sealed \
            at start, in batches.
            """
    )

    @Option(name: .customLong("port"), help: "The port (0: any free port).")
    var port: Int

    @Option(
        name: .customLong("database"),
        help: "sqlite:PATH (default sqlite:llm-keys.sqlite) or postgres://user:pass@host:port/db"
    )
    var database: String = "sqlite:llm-keys.sqlite"

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port takes 0 to 65535") }
        guard database.hasPrefix("sqlite:") || database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
        else { throw ValidationError("--database takes sqlite:PATH or postgres://…") }
    }

    func run() async throws {
        let cipher = try LLMKeyCipher.load()
        let authenticator = try HS256JWTAuthenticator(
            secret: Secret(try LLMKeysCommand.environment("OPENCAT_LLM_JWT_SECRET"))
        )
        let logger = Logger(label: "opencat.llm-keys")
        try await withThrowingTaskGroup(of: Void.self) { group in
            let store: any LLMKeyStore
            if database.hasPrefix("sqlite:") {
                store = try SQLiteLLMKeyStore(
                    fileURL: URL(fileURLWithPath: String(database.dropFirst("sqlite:".count)))
                )
            } else {
                let client = try PostgresLLMKeyStore.client(url: database, logger: logger)
                group.addTask { await client.run() }
                let postgres = try PostgresLLMKeyStore(client: client)
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
            let app = api.application(port: port) { bound in
                FileHandle.standardOutput.write(Data("llm-keys: listening on http://127.0.0.1:\(bound)\n".utf8))
            }
            group.addTask { try await app.runService() }
            try await group.next()
            group.cancelAll()
        }
    }
}

/// `opencat llm-keys token --user U --tier T [--ttl S]`.
struct LLMKeysToken: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Mint an HS256 token (sub, plan_tier, exp) with OPENCAT_LLM_JWT_SECRET, for trying the API."
    )

    @Option(name: .customLong("user"), help: "The user id (sub).")
    var user: String

    @Option(name: .customLong("tier"), help: "The plan tier: pro, pro_plus, pro_trial, starter, free, …")
    var tier: String

    @Option(name: .customLong("ttl"), help: "Seconds until it expires (default 3600).")
    var ttl: Int = 3600

    func validate() throws {
        guard !user.isEmpty, !tier.isEmpty else { throw ValidationError("--user and --tier must not be empty") }
        guard (1...31_536_000).contains(ttl) else { throw ValidationError("--ttl takes 1 to 31536000 seconds") }
    }

    func run() throws {
        let authenticator = try HS256JWTAuthenticator(
            secret: Secret(try LLMKeysCommand.environment("OPENCAT_LLM_JWT_SECRET"))
        )
        print(
            authenticator.token(
                user: user,
                tier: PlanTier(rawValue: tier),
                expiresAt: Date().addingTimeInterval(TimeInterval(ttl))
            )
        )
    }
}
