import ArgumentParser
import Foundation
import Hummingbird
import Logging
import OpenCatServer
import PostgresNIO

/// `opencat server`: the reference server.
struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "The OpenCat reference server.",
        subcommands: [ServerServe.self]
    )
}

/// `opencat server serve --port N --database sqlite:PATH --tokens FILE`.
struct ServerServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve GET /health and the key server's wallet API on 127.0.0.1.",
        discussion: """
            --database sqlite:PATH keeps the ledger in a SQLite file (created owner-only, one instance); \
            postgres://user:password@host:port/database keeps it in PostgreSQL, shared by several instances (tables \
            created on start). --tokens names a JSON file mapping bearer tokens to user ids ({"<token>": "<user id>"}); \
            keep it out of the repository.
            """
    )

    @Option(name: .customLong("port"), help: "The port (0: any free port).") var port = 8080
    @Option(name: .customLong("database"), help: "sqlite:PATH or postgres://user:password@host:port/database")
    var database = "sqlite:opencat-server.sqlite"
    @Option(name: .customLong("tokens"), help: "A JSON file of bearer tokens → user ids.") var tokens: String?

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard
            (database.hasPrefix("sqlite:") && database.count > 7) || database.hasPrefix("postgres://")
                || database.hasPrefix("postgresql://")
        else {
            throw ValidationError("--database takes sqlite:PATH or postgres://user:password@host:port/database")
        }
    }

    func run() async throws {
        var logger = Logger(label: "dev.opencat.server")
        logger.logLevel = .info
        let bearer = try tokens.map { try BearerTokens(file: URL(fileURLWithPath: $0)) } ?? BearerTokens([:])
        if database.hasPrefix("sqlite:") {
            let path = String(database.dropFirst(7))
            let ledger = try SQLiteLedgerStore(fileURL: URL(fileURLWithPath: path))
            try await serve(
                OpenCatServerApplication(ledger: ledger, tokens: bearer, databaseKind: "sqlite", logger: logger)
            )
            return
        }
        let client = try PostgresLedgerStore.client(url: database, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let ledger = PostgresLedgerStore(client: client, logger: logger)
            try await ledger.migrate()
            try await serve(
                OpenCatServerApplication(ledger: ledger, tokens: bearer, databaseKind: "postgresql", logger: logger)
            )
        }
    }

    func serve(_ server: OpenCatServerApplication) async throws {
        let app = server.application(port: port) { bound in
            // Unbuffered: a supervisor (or a test) reads the bound port from the first line.
            FileHandle.standardOutput.write(
                Data("opencat server: listening on http://127.0.0.1:\(bound) (\(server.databaseKind))\n".utf8)
            )
        }
        try await app.runService()
    }
}
