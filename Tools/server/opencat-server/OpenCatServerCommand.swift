import ArgumentParser
import Logging

/// `opencat-server`: the OpenCat reference server — the key server API and the OpenCat API over one ledger on
/// SQLite or PostgreSQL, and the LLM key API — with the commands that set it up.
@main
struct OpenCatServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "opencat-server",
        abstract: "The OpenCat reference server: the key server API and the OpenCat API (and the LLM key API).",
        discussion: """
            With no command it serves, by default on 127.0.0.1:8080 with the ledger in sqlite:opencat-server.sqlite \
            (`opencat-server --config server.json`; `--host 0.0.0.0` for every interface). `opencat-server init \
            --demo` writes a demo configuration. Tools/server/README.md walks through a first run.
            """,
        subcommands: [
            ServeCommand.self, ServerInit.self, ServerAddUser.self, ServerKeygen.self, ServerHashToken.self,
            LLMKeysServe.self,
        ],
        defaultSubcommand: ServeCommand.self
    )
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
