import ArgumentParser
import Foundation
import LLMKeyResolver
import LLMKeyResolverHTTP
import OpenCatCore

/// `opencat llm-keys`: run the LLM key API, mint tokens to try it.
struct LLMKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "llm-keys",
        abstract: "Mint a token for the LLM key API (served by `opencat-server llm-keys`).",
        subcommands: [LLMKeysToken.self]
    )

    static func environment(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw ValidationError("set \(name)")
        }
        return value
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
