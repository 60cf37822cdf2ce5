import ArgumentParser
import ChippiPayClient
import KeyServerClient
import LLMKeyResolver
import MockStores
import OpenCatCore
import StoreAdapters

/// `opencat`: the OpenCat command-line tool.
@main
struct OpenCatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "opencat",
        abstract: "OpenCat: verify store purchases and licenses, run the conformance suite, serve mock stores.",
        discussion: "The reference server is `opencat-server`; release engineering is `opencat-release`.",
        subcommands: [
            ConformanceCommand.self, VerifyCommand.self, MockCommand.self, FixturesCommand.self, KeysCommand.self,
            LLMKeysCommand.self, StarknetCommand.self, ChippiPayCommand.self, StoreCommand.self,
            AppleCommand.self, VersionCommand.self,
        ]
    )
}

/// `opencat version`: every package's version.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "Print every package's version.")

    /// Every package and its version.
    static let versions = [
        ("OpenCatCore", OpenCatCoreVersion.string), ("StoreAdapters", StoreAdaptersVersion.string),
        ("MockStores", MockStoresVersion.string), ("KeyServerClient", KeyServerClientVersion.string),
        ("ChippiPayClient", ChippiPayClientVersion.string), ("LLMKeyResolver", LLMKeyResolverVersion.string),
    ]

    func run() {
        for (name, version) in Self.versions { print("\(name) \(version)") }
    }
}
