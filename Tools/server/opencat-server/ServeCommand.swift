import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Metrics
import OpenCatAsyncHTTPClient
import OpenCatCore
import OpenCatServer
import OpenCatServerPostgres
import PostgresNIO
import Prometheus
import ServiceLifecycle
import StoreAdapters
import UnixSignals

/// What ``buildApplication(_:)`` reads: the serve command's options (the shape of Hummingbird's own examples).
protocol AppArguments: Sendable {
    var host: String { get }
    var port: Int { get }
    var logLevel: Logger.Level? { get }
    /// `sqlite:PATH`, `postgres://…`, or `env:NAME`.
    var database: String { get }
    var config: String? { get }
    var tokens: String? { get }
    /// A port of its own for `GET /metrics` without a credential (nil: `/metrics` on the main port, for an operator's
    /// token only).
    var metricsPort: Int? { get }
    /// TLS, CA bundle, server name and password source for a `postgres://` database.
    func databaseSettings() throws(PostgresConfigurationError) -> PostgresConnectionSettings
}

/// `opencat-server [serve] --host H --port N --log-level L --database sqlite:PATH|postgres://…|env:NAME --config F
/// [--database-tls disable|prefer|require --database-ca-file PEM --database-password-file F|--database-password-env V]`.
struct ServeCommand: AsyncParsableCommand, AppArguments {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve /health, /ready, /openapi.yaml, the key server API and the OpenCat API.",
        discussion: """
            --database sqlite:PATH keeps the ledger in a SQLite file (created owner-only; one server per file, a \
            second is refused); postgres://user:password@host:port/database keeps it in PostgreSQL, shared by \
            several instances; env:NAME reads either from that variable, so a password never appears in `ps`. \
            For PostgreSQL, --database-tls prefer|require turns TLS on (the certificate verified against \
            --database-ca-file, or the system's roots, and the host or --database-tls-server-name), and \
            --database-password-file or --database-password-env supplies the password instead of the URL. \
            Migrations run before the server accepts a request. --config names the server's JSON configuration (see \
            Tools/server/README.md); store secrets come from the environment variables it names. SIGTERM and SIGINT \
            stop accepting connections and finish the requests in flight before the process exits.
            """
    )

    @Option(name: .customLong("host"), help: "The address to bind (0.0.0.0: every interface).")
    var host = "127.0.0.1"
    @Option(name: .customLong("port"), help: "The port (0: any free port).")
    var port = 8080
    @Option(
        name: .customLong("log-level"),
        help: "trace, debug, info, notice, warning, error or critical (default info, or OPENCAT_LOG_LEVEL)."
    )
    var logLevel: Logger.Level?
    @Option(
        name: .customLong("database"),
        help: "sqlite:PATH, postgres://user:password@host:port/database, or env:NAME (the URL in that variable)"
    )
    var database = "sqlite:opencat-server.sqlite"
    @Option(name: .customLong("config"), help: "The server configuration (JSON).")
    var config: String?
    @Option(name: .customLong("tokens"), help: "A JSON file of bearer tokens → user ids (wallet only).")
    var tokens: String?
    @Option(
        name: .customLong("metrics-port"),
        help:
            "Serve GET /metrics (Prometheus) on this port of --host without a credential; without it, /metrics is on the main port for a console operator's token."
    )
    var metricsPort: Int?
    @OptionGroup var databaseConnection: DatabaseConnectionOptions

    func databaseSettings() throws(PostgresConfigurationError) -> PostgresConnectionSettings {
        try databaseConnection.settings()
    }

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard !host.isEmpty else { throw ValidationError("--host must not be empty") }
        let url = ServerDatabase.resolve(database)
        guard
            (url.hasPrefix("sqlite:") && url.count > 7) || url.hasPrefix("postgres://")
                || url.hasPrefix("postgresql://")
        else {
            throw ValidationError(
                database.hasPrefix("env:")
                    ? "\(database): the variable is not set to sqlite:PATH or postgres://…"
                    : "--database takes sqlite:PATH, postgres://user:password@host:port/database or env:NAME"
            )
        }
        try databaseConnection.validate(database: url)
    }

    func run() async throws {
        let app = try await buildApplication(self) { address in
            // Unbuffered: a supervisor (or a test) reads the bound address from the first line.
            FileHandle.standardOutput.write(Data("opencat-server: listening on \(address)\n".utf8))
        }
        // SIGTERM / SIGINT: stop accepting, drain the requests in flight for at most 30 s, then stop the services.
        var configuration = ServiceGroupConfiguration(
            services: [app],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: app.logger
        )
        configuration.maximumGracefulShutdownDuration = .seconds(30)
        try await ServiceGroup(configuration: configuration).run()
    }
}

/// The PostgreSQL connection flags `serve` and `llm-keys` share; they apply to a `postgres://` database only.
/// ``PostgresConnectionSettings`` turns them, with the URL, into PostgresNIO's configuration.
struct DatabaseConnectionOptions: ParsableArguments {
    @Option(name: .customLong("database-tls"), help: "TLS to PostgreSQL: disable (default), prefer or require.")
    var tls = PostgresTLSMode.disable.rawValue
    @Option(
        name: .customLong("database-ca-file"),
        help: "A PEM bundle of the CAs the PostgreSQL certificate must chain to (default: the system's roots)."
    )
    var caFile: String?
    @Option(
        name: .customLong("database-tls-server-name"),
        help: "The name the PostgreSQL certificate must carry (default: the URL's host)."
    )
    var serverName: String?
    @Option(
        name: .customLong("database-password-file"),
        help: "An owner-only file holding the PostgreSQL password (instead of the URL's)."
    )
    var passwordFile: String?
    @Option(
        name: .customLong("database-password-env"),
        help: "An environment variable holding the PostgreSQL password (instead of the URL's)."
    )
    var passwordEnv: String?

    /// The settings these flags describe.
    func settings() throws(PostgresConfigurationError) -> PostgresConnectionSettings {
        try PostgresConnectionSettings(
            tls: tls,
            caFile: caFile,
            serverName: serverName,
            passwordFile: passwordFile,
            passwordVariable: passwordEnv
        )
    }

    /// Refuses a bad mode or combination, and any of these flags with a SQLite database (`url` is `--database`
    /// resolved).
    func validate(database url: String) throws {
        do { _ = try settings() } catch { throw ValidationError("--database-tls…: \(error.message)") }
        let given =
            tls != PostgresTLSMode.disable.rawValue || caFile != nil || serverName != nil
            || passwordFile != nil || passwordEnv != nil
        if given, url.hasPrefix("sqlite:") {
            throw ValidationError(
                "--database-tls, --database-ca-file, --database-tls-server-name and --database-password-… apply to a "
                    + "postgres:// database"
            )
        }
    }
}

/// The server's database argument.
enum ServerDatabase {
    /// `env:NAME` → the variable's value; anything else as it is.
    static func resolve(_ argument: String) -> String {
        guard argument.hasPrefix("env:") else { return argument }
        return ProcessInfo.processInfo.environment[String(argument.dropFirst(4))] ?? ""
    }
}

/// The reference server as a Hummingbird application: configuration read and checked (a misconfigured store is
/// named with its field), the stores' HTTP client and the PostgreSQL client run as services, migrations applied
/// before the server starts, every request logged with its id.
func buildApplication(
    _ arguments: some AppArguments,
    onServerRunning: @escaping @Sendable (String) -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "opencat-server")
    logger.logLevel =
        arguments.logLevel ?? ProcessInfo.processInfo.environment["OPENCAT_LOG_LEVEL"].flatMap {
            Logger.Level(rawValue: $0)
        }
        ?? .info
    let environment = ProcessInfo.processInfo.environment
    let transport = AsyncHTTPClientTransport()
    var services: [any Service] = [ShutdownService(name: "stores' HTTP client") { try await transport.shutdown() }]
    var settings = ServerSettings(users: BearerTokens(users: []))
    var stores: (adapters: [any StoreAdapter], stripe: StripeWebhookVerifier?, payPal: PayPalWebhookVerifier?) = (
        [], nil, nil
    )
    do throws(ServerConfigurationError) {
        if let config = arguments.config {
            let file = try ServerConfigurationFile(file: URL(fileURLWithPath: config))
            settings = try file.settings(environment: environment)
            let built = try file.adapters(
                environment: environment,
                httpClient: HTTPClient(transport: transport, logger: logger),
                logger: logger
            )
            stores = (built.adapters, built.stripeWebhooks, built.payPalWebhooks)
        } else if let tokens = arguments.tokens {
            settings.users = try BearerTokens(file: URL(fileURLWithPath: tokens))
        }
    } catch {
        try? await transport.shutdown()
        throw ServerStartError("configuration: \(error.message)")
    }
    // swift-metrics' backend before the ledger opens (it records its pool size).
    let registry = ProcessMetrics.registry
    let opened: OpenedLedger
    do { opened = try openLedger(arguments, logger: logger, services: &services) } catch {
        try? await transport.shutdown()
        throw error
    }
    let (ledger, kind, migrate) = (opened.ledger, opened.kind, opened.migrate)
    let server = OpenCatServerApplication(
        ledger: ledger,
        settings: settings,
        adapters: stores.adapters,
        stripeWebhooks: stores.stripe,
        payPalWebhooks: stores.payPal,
        databaseKind: kind,
        logger: logger,
        metrics: registry,
        webhookTransport: transport
    )
    let host = arguments.host
    if let metricsPort = arguments.metricsPort {
        services.append(server.metricsApplication(host: host, port: metricsPort))
    }
    let app = server.application(
        host: host,
        port: arguments.port,
        services: services,
        onServerRunning: { port in onServerRunning("http://\(host):\(port) (\(kind))") },
        beforeServerStarts: migrate
    )
    let storeNames = stores.adapters.map(\.store.rawValue).sorted()
    logger.info(
        "starting",
        metadata: [
            "database": .string(kind),
            "stores": .string(storeNames.isEmpty ? "none" : storeNames.joined(separator: ",")),
        ]
    )
    return app
}

/// The ledger `--database` names, and what else it needs: a SQLite file's lock, or the PostgreSQL client as a
/// service (first, so it stops last) and its migrations before the server starts.
struct OpenedLedger {
    var ledger: any LedgerStore
    var kind: String
    var migrate: (@Sendable () async throws -> Void)?
}

func openLedger(_ arguments: some AppArguments, logger: Logger, services: inout [any Service]) throws -> OpenedLedger {
    let database = ServerDatabase.resolve(arguments.database)
    let ledger: any LedgerStore
    let kind: String
    var migrate: (@Sendable () async throws -> Void)?
    if database.hasPrefix("sqlite:") {
        let path = String(database.dropFirst(7))
        let lock = try SQLiteFileLock(path: path)
        services.append(ShutdownService(name: "SQLite lock") { lock.release() })
        ledger = try SQLiteLedgerStore(fileURL: URL(fileURLWithPath: path))
        kind = "sqlite"
    } else {
        let configuration: PostgresClient.Configuration
        do throws(PostgresConfigurationError) {
            configuration = try arguments.databaseSettings().configuration(url: database)
        } catch {
            throw ServerStartError("--database: \(error.message)")
        }
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let postgres = PostgresLedgerStore(
            client: client,
            logger: logger,
            maximumConnections: configuration.options.maximumConnections
        )
        let (started, signal) = AsyncStream.makeStream(of: Void.self)
        services.insert(PostgresClientService(client: client, started: signal), at: 0)
        ledger = postgres
        kind = "postgresql"
        migrate = {
            // Migrate once the client's run() has begun (PostgresNIO warns about a query before it).
            for await _ in started {}
            await Task.yield()
            try await postgres.migrate()
        }
    }
    return OpenedLedger(ledger: ledger, kind: kind, migrate: migrate)
}

/// The process's Prometheus registry, swift-metrics' backend (bootstrapped once, when the server is built).
enum ProcessMetrics {
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()
}

/// Runs the PostgreSQL client as a service and says when its `run()` begins.
struct PostgresClientService: Service {
    let client: PostgresClient
    let started: AsyncStream<Void>.Continuation

    func run() async {
        started.finish()
        await client.run()
    }
}

/// A service that does nothing until the service group shuts down, then runs `shutdown` (after the HTTP server has
/// drained, since the group stops services in reverse order).
struct ShutdownService: Service {
    let name: String
    let shutdown: @Sendable () async throws -> Void

    func run() async throws {
        try? await gracefulShutdown()
        try await shutdown()
    }
}

/// An exclusive lock on `PATH.lock` held while the server runs: a second server on the same SQLite ledger is refused
/// (SQLite serialises writers inside one process only; two processes would interleave a balance check and a spend).
final class SQLiteFileLock: Sendable {
    let descriptor: Int32

    init(path: String) throws {
        let lockPath = path + ".lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ServerStartError("\(lockPath) cannot be opened (errno \(errno))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw ServerStartError(
                "another opencat-server already serves \(path) (it holds \(lockPath)); a SQLite ledger has one server"
            )
        }
        descriptor = fd
    }

    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

/// Why the server did not start (exit 1 with this line, no usage text).
struct ServerStartError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
