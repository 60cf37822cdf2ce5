import ArgumentParser
import Foundation
import Hummingbird
import Logging
import OpenCatServer

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
            --database sqlite:PATH keeps the ledger in a SQLite file (created owner-only). --tokens names a JSON file \
            mapping bearer tokens to user ids ({"<token>": "<user id>"}); keep it out of the repository. \
            PostgreSQL storage (postgres://…) is not available yet.
            """
    )

    @Option(name: .customLong("port"), help: "The port (0: any free port).") var port = 8080
    @Option(name: .customLong("database"), help: "sqlite:PATH") var database = "sqlite:opencat-server.sqlite"
    @Option(name: .customLong("tokens"), help: "A JSON file of bearer tokens → user ids.") var tokens: String?

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard database.hasPrefix("sqlite:"), database.count > 7 else {
            throw ValidationError("--database takes sqlite:PATH (PostgreSQL storage is not available yet)")
        }
    }

    func run() async throws {
        let path = String(database.dropFirst(7))
        let ledger = try SQLiteLedgerStore(fileURL: URL(fileURLWithPath: path))
        let bearer = try tokens.map { try BearerTokens(file: URL(fileURLWithPath: $0)) } ?? BearerTokens([:])
        var logger = Logger(label: "dev.opencat.server")
        logger.logLevel = .info
        let server = OpenCatServerApplication(ledger: ledger, tokens: bearer, databaseKind: "sqlite", logger: logger)
        let app = server.application(port: port) { bound in
            // Unbuffered: a supervisor (or a test) reads the bound port from the first line.
            FileHandle.standardOutput.write(
                Data("opencat server: listening on http://127.0.0.1:\(bound) (ledger \(path))\n".utf8)
            )
        }
        try await app.runService()
    }
}
