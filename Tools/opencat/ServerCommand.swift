import ArgumentParser
import Crypto
import Foundation
import KeyServerClient
import Logging
import OpenCatAsyncHTTPClient
import OpenCatCore
import OpenCatServer
import PostgresNIO
import StoreAdapters

/// `opencat server`: the reference server.
struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "The OpenCat reference server: the OpenCat API and the key server.",
        subcommands: [ServerServe.self, ServerInit.self, ServerKeygen.self, ServerHashToken.self]
    )
}

/// `opencat server serve --port N --database sqlite:PATH|postgres://… --config FILE`.
struct ServerServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve GET /health, the key server API and the OpenCat API on 127.0.0.1.",
        discussion: """
            --database sqlite:PATH keeps the ledger in a SQLite file (created owner-only, one instance); \
            postgres://user:password@host:port/database keeps it in PostgreSQL, shared by several instances \
            (migrations run on start). --config names the server's JSON configuration (users by token hash, key \
            packs, apps, signing keys, the OpenCat API, the stores; see Tools/server/README.md); store secrets come \
            from the environment variables it names. `opencat server init DIR` writes a starter configuration.
            """
    )

    @Option(name: .customLong("port"), help: "The port (0: any free port).") var port = 8080
    @Option(
        name: .customLong("database"),
        help: "sqlite:PATH, postgres://user:password@host:port/database, or env:NAME (the URL in that variable)"
    )
    var database = "sqlite:opencat-server.sqlite"
    @Option(name: .customLong("config"), help: "The server configuration (JSON).") var config: String?
    @Option(name: .customLong("tokens"), help: "A JSON file of bearer tokens → user ids (wallet only).")
    var tokens: String?

    /// The database URL: `env:NAME` reads it from the environment, so a password never appears in `ps`.
    var databaseURL: String {
        guard database.hasPrefix("env:") else { return database }
        return ProcessInfo.processInfo.environment[String(database.dropFirst(4))] ?? ""
    }

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        let database = databaseURL
        guard
            (database.hasPrefix("sqlite:") && database.count > 7) || database.hasPrefix("postgres://")
                || database.hasPrefix("postgresql://")
        else {
            throw ValidationError("--database takes sqlite:PATH or postgres://user:password@host:port/database")
        }
    }

    func run() async throws {
        // The stores' HTTP client lives as long as the server and is shut down after it.
        let transport = AsyncHTTPClientTransport()
        do {
            try await run(transport: transport)
            try await transport.shutdown()
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    func run(transport: AsyncHTTPClientTransport) async throws {
        var logger = Logger(label: "dev.opencat.server")
        logger.logLevel = .info
        let environment = ProcessInfo.processInfo.environment
        var settings = ServerSettings(users: BearerTokens(users: []))
        var stores:
            (
                adapters: [any StoreAdapter], stripeWebhooks: StripeWebhookVerifier?,
                payPalWebhooks: PayPalWebhookVerifier?
            ) = ([], nil, nil)
        do throws(ServerConfigurationError) {
            if let config {
                let file = try ServerConfigurationFile(file: URL(fileURLWithPath: config))
                settings = try file.settings(environment: environment)
                stores = try file.adapters(
                    environment: environment,
                    httpClient: HTTPClient(transport: transport, logger: logger),
                    logger: logger
                )
            } else if let tokens {
                settings.users = try BearerTokens(file: URL(fileURLWithPath: tokens))
            }
        } catch {
            throw ValidationError(error.message)
        }
        let make = { (ledger: any LedgerStore, kind: String) in
            OpenCatServerApplication(
                ledger: ledger,
                settings: settings,
                adapters: stores.adapters,
                stripeWebhooks: stores.stripeWebhooks,
                payPalWebhooks: stores.payPalWebhooks,
                databaseKind: kind,
                logger: logger
            )
        }
        let database = databaseURL
        if database.hasPrefix("sqlite:") {
            let path = String(database.dropFirst(7))
            try await serve(make(try SQLiteLedgerStore(fileURL: URL(fileURLWithPath: path)), "sqlite"))
            return
        }
        let client = try PostgresLedgerStore.client(url: database, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let ledger = PostgresLedgerStore(client: client, logger: logger)
            try await ledger.migrate()
            try await serve(make(ledger, "postgresql"))
        }
    }

    func serve(_ server: OpenCatServerApplication) async throws {
        try await server.run(port: port) { bound in
            // Unbuffered: a supervisor (or a test) reads the bound port from the first line.
            FileHandle.standardOutput.write(
                Data("opencat server: listening on http://127.0.0.1:\(bound) (\(server.databaseKind))\n".utf8)
            )
        }
    }
}

/// `opencat server init DIR`: a starter configuration with one user, a signing key, a key pack and an app.
struct ServerInit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a starter server configuration (server.json, users.json, a signing key) into a folder.",
        discussion: """
            Prints the demo user's bearer token and the OpenCat API key once: the files keep only their SHA-256. \
            No store is configured; add them to server.json (see Tools/server/README.md).
            """
    )

    @Argument(help: "The folder to create (must not exist).") var folder: String

    func run() throws {
        let root = URL(fileURLWithPath: folder)
        guard !FileManager.default.fileExists(atPath: root.path) else {
            throw ValidationError("\(folder) exists; init writes a new folder")
        }
        let keys = root.appendingPathComponent("signing-keys")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: keys.path)
        let kid = "k" + ISO8601DateFormatter().string(from: Date()).prefix(10).replacingOccurrences(of: "-", with: "")
        let issuer: LicenseIssuer
        do throws(ServerConfigurationError) { issuer = try LicenseKeyring.generate(kid: kid, in: keys) } catch {
            throw ValidationError(error.message)
        }
        let token = "ocs_" + Self.random()
        let apiKey = "ocat_" + Self.random()
        let users = [ServerUser(userId: "demo-user", email: "demo@example.com", token: token)]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try write(try encoder.encode(users), to: root.appendingPathComponent("users.json"))
        let config: [String: Any] = [
            "usersFile": "users.json",
            "signingKeys": ["folder": "signing-keys", "activeKid": kid],
            "keyPacks": ["com.example.keys.10": ["keys": 10, "bonusKeys": 1, "communityKeys": 1, "plan": "L1"]],
            "apps": ["example-app": [["id": "pro-voices", "name": "Pro voices", "cost": 3]]],
            "syncRateLimit": ["requests": 10, "seconds": 60],
            "openCat": [
                "apiKeySHA256": [BearerTokens.hash(apiKey)],
                "entitlements": ["com.example.pro.monthly": ["pro"]],
            ],
            "stores": [String: Any](),
        ]
        let data = try JSONSerialization.data(
            withJSONObject: config,
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        )
        try write(data, to: root.appendingPathComponent("server.json"))
        print("wrote \(root.path)/server.json, users.json and signing-keys/\(kid).ed25519")
        print("license public key (\(kid)): \(issuer.publicKey.rawRepresentation.base64EncodedString())")
        print("demo-user bearer token (shown once): \(token)")
        print("OpenCat API key (shown once): \(apiKey)")
    }

    func write(_ data: Data, to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: data, attributes: [.posixPermissions: 0o600])
        else { throw ValidationError("\(url.path) cannot be written") }
    }

    static func random() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// `opencat server keygen --kid K --folder DIR`: a new license signing key (rotation).
struct ServerKeygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write a new Ed25519 license signing key <kid>.ed25519 (owner-only) and print its public key.",
        discussion: """
            Rotate by generating a key with a new kid and making it signingKeys.activeKid: keep the old files, so \
            licenses they signed keep verifying (apps embed every public key by kid).
            """
    )

    @Option(name: .customLong("kid"), help: "The key id (letters, digits, . _ -).") var kid: String
    @Option(name: .customLong("folder"), help: "The signing key folder.") var folder: String

    func run() throws {
        do throws(ServerConfigurationError) {
            let issuer = try LicenseKeyring.generate(kid: kid, in: URL(fileURLWithPath: folder))
            print("\(kid): \(issuer.publicKey.rawRepresentation.base64EncodedString())")
        } catch {
            throw ValidationError(error.message)
        }
    }
}

/// `opencat server hash-token`: the SHA-256 a users file or `openCat.apiKeySHA256` keeps for a token.
struct ServerHashToken: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash-token",
        abstract: "Read a token on standard input and print its SHA-256 (hex), for users.json and server.json."
    )

    func run() throws {
        let input = FileHandle.standardInput.readDataToEndOfFile()
        let token = String(decoding: input, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw ValidationError("no token on standard input") }
        print(BearerTokens.hash(token))
    }
}
