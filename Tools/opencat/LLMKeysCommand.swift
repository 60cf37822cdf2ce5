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

/// `opencat llm-keys token --user U --tier T [--ttl S] [--jwt-issuer I --jwt-audience A --jwt-max-lifetime S]`.
struct LLMKeysToken: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract:
            "Mint an HS256 token (sub, plan_tier, iss, aud, iat, exp) with OPENCAT_LLM_JWT_SECRET, for trying the API.",
        discussion: """
            iss and aud are what `opencat-server llm-keys` expects: --jwt-issuer and --jwt-audience, else \
            OPENCAT_LLM_JWT_ISSUER and OPENCAT_LLM_JWT_AUDIENCE, else opencat and llm-keys. A --ttl over the maximum \
            lifetime (--jwt-max-lifetime, else OPENCAT_LLM_JWT_MAX_LIFETIME, else 86400 seconds) is refused.
            """
    )

    @Option(name: .customLong("user"), help: "The user id (sub).")
    var user: String

    @Option(name: .customLong("tier"), help: "The plan tier: pro, pro_plus, pro_trial, starter, free, …")
    var tier: String

    @Option(name: .customLong("ttl"), help: "Seconds until it expires (default 3600, at most the maximum lifetime).")
    var ttl: Int = 3600

    @Option(name: .customLong("jwt-issuer"), help: "iss (default OPENCAT_LLM_JWT_ISSUER, or opencat).")
    var issuer: String?

    @Option(name: .customLong("jwt-audience"), help: "aud (default OPENCAT_LLM_JWT_AUDIENCE, or llm-keys).")
    var audience: String?

    @Option(
        name: .customLong("jwt-max-lifetime"),
        help: "The longest --ttl allowed, in seconds (default OPENCAT_LLM_JWT_MAX_LIFETIME, or 86400)."
    )
    var maximumLifetime: Int?

    func validate() throws {
        guard !user.isEmpty, !tier.isEmpty else { throw ValidationError("--user and --tier must not be empty") }
        let policy = try policy()
        guard ttl >= 1, TimeInterval(ttl) <= policy.maximumLifetime else {
            throw ValidationError("--ttl takes 1 to \(Int(policy.maximumLifetime)) seconds (the maximum lifetime)")
        }
    }

    /// The environment's policy with the flags over it (the server reads the same variables).
    func policy() throws -> LLMTokenPolicy {
        do throws(LLMKeyError) {
            return try LLMTokenPolicy(
                environment: ProcessInfo.processInfo.environment,
                issuer: issuer,
                audience: audience,
                maximumLifetime: maximumLifetime.map { TimeInterval($0) }
            )
        } catch {
            throw ValidationError("the JWT policy: \(error.message)")
        }
    }

    func run() throws {
        let authenticator = try HS256JWTAuthenticator(
            secret: Secret(try LLMKeysCommand.environment("OPENCAT_LLM_JWT_SECRET")),
            policy: try policy()
        )
        print(
            try authenticator.token(
                user: user,
                tier: PlanTier(rawValue: tier),
                issuedAt: Date(),
                lifetime: TimeInterval(ttl)
            )
        )
    }
}
