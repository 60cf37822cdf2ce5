// swift-tools-version:6.1
// The OpenCat workspace: depends on every package by path, hosts the conformance suite and the tools.
// `swift test` here runs every package's own tests as well as the conformance suite.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "OpenCatWorkspace",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // The command line: conformance, verify, keys, starknet, chippipay, fixtures, mock, version. No PostgreSQL
        // client, no TLS stack, no AsyncHTTPClient, no ZIP.
        .executable(name: "opencat", targets: ["opencat"]),
        // The reference server (key server, OpenCat API, LLM key API) on SQLite or PostgreSQL.
        .executable(name: "opencat-server", targets: ["opencat-server"]),
        // Release engineering for the monorepo's packages.
        .executable(name: "opencat-release", targets: ["opencat-release"]),
        // The reference server as a library: its SQLite core, and the PostgreSQL ledger beside it.
        .library(name: "OpenCatServer", targets: ["OpenCatServer"]),
        .library(name: "OpenCatServerPostgres", targets: ["OpenCatServerPostgres"]),
    ],
    dependencies: [
        .package(path: "Packages/OpenCatCore"),
        .package(path: "Packages/StoreAdapters"),
        .package(path: "Packages/MockStores"),
        .package(path: "Packages/KeyServerClient"),
        .package(path: "Packages/ChippiPayClient"),
        .package(path: "Packages/LLMKeyResolver"),
        // The conformance suite for adapter authors (the OpenCatConformance package).
        .package(path: "ConformanceTests"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // The workspace's own sections (key server, LLM keys, ChippiPay, reference server): internal, for the CLI
        // and the tests.
        .target(
            name: "OpenCatConformanceSections",
            dependencies: [
                .product(name: "OpenCatConformance", package: "ConformanceTests"),
                "OpenCatServer",
                .product(name: "ChippiPayClient", package: "ChippiPayClient"),
                .product(name: "StarknetCrypto", package: "ChippiPayClient"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "LLMKeyResolver", package: "LLMKeyResolver"),
                .product(name: "KeyServerClient", package: "KeyServerClient"),
                .product(name: "OpenCat", package: "OpenCatCore"),
                .product(name: "OpenCatStorage", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "MockStores", package: "MockStores"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tools/conformance/OpenCatConformanceSections",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WorkspaceConformanceTests",
            dependencies: [
                .product(name: "ChippiPayClient", package: "ChippiPayClient"),
                .product(name: "StarknetCrypto", package: "ChippiPayClient"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "KeyServerClient", package: "KeyServerClient"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "MockStoresServer", package: "MockStores"),
                .product(name: "OpenCat", package: "OpenCatCore"),
                .product(name: "OpenCatStorage", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "OpenCatConformance", package: "ConformanceTests"),
                "OpenCatConformanceSections",
                "ToolsTestSupport",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatAsyncHTTPClient", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "MockStores", package: "MockStores"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tools/Tests/WorkspaceConformanceTests",
            swiftSettings: swiftSettings
        ),
        // The reference server: the OpenCat API and the key server on Hummingbird, verifying with StoreAdapters, its
        // ledger on SQLite or PostgreSQL.
        .target(
            name: "OpenCatServer",
            dependencies: [
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                // The wire contracts it shares with the clients, and licences: not the clients, not the device SDK.
                .product(name: "KeyServerAPI", package: "KeyServerClient"),
                .product(name: "OpenCatLicense", package: "KeyServerClient"),
                .product(name: "OpenCatServerAPI", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // getaddrinfo off the concurrency pool (NIOThreadPool): the webhook senders' address check.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Tools/server/OpenCatServer",
            resources: [.copy("Resources/keyserver.openapi.yaml"), .copy("Resources/opencat.openapi.yaml")],
            swiftSettings: swiftSettings
        ),
        // The ledger on PostgreSQL, for several server instances on one database.
        .target(
            name: "OpenCatServerPostgres",
            dependencies: [
                "OpenCatServer",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/server/OpenCatServerPostgres",
            swiftSettings: swiftSettings
        ),
        // `opencat-server`: serve, init, keygen, hash-token, add-user, llm-keys.
        .executableTarget(
            name: "opencat-server",
            dependencies: [
                "OpenCatServer",
                "OpenCatServerPostgres",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatAsyncHTTPClient", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "OpenCatLicense", package: "KeyServerClient"),
                .product(name: "KeyServerAPI", package: "KeyServerClient"),
                .product(name: "LLMKeyResolver", package: "LLMKeyResolver"),
                .product(name: "LLMKeyResolverHTTP", package: "LLMKeyResolver"),
                .product(name: "LLMKeyResolverPostgres", package: "LLMKeyResolver"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Tools/server/opencat-server",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OpenCatServerTests",
            dependencies: [
                "OpenCatServer",
                "OpenCatServerPostgres",
                "ToolsTestSupport",
                "opencat-server",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "OpenCatAsyncHTTPClient", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "KeyServerClient", package: "KeyServerClient"),
                .product(name: "MockStores", package: "MockStores"),
                .product(name: "MockStoresServer", package: "MockStores"),
                // The SDK in server mode, against the reference server (the console's promotional grants).
                .product(name: "OpenCat", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Tools/Tests/OpenCatServerTests",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "OpenCatRelease",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            path: "Tools/release/OpenCatRelease",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "opencat-release",
            dependencies: [
                "OpenCatRelease",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/release/opencat-release",
            swiftSettings: swiftSettings
        ),
        // Test support for the tools' tests: child processes run with swift-subprocess (never a blocking wait), the
        // tests' PostgreSQL (or a fast failure naming the command that provisions it).
        .target(
            name: "ToolsTestSupport",
            dependencies: [
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Tools/Tests/Support",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "opencat",
            dependencies: [
                .product(name: "LLMKeyResolverHTTP", package: "LLMKeyResolver"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MockStoresServer", package: "MockStores"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "MockStores", package: "MockStores"),
                .product(name: "OpenCatConformance", package: "ConformanceTests"),
                "OpenCatConformanceSections",
                .product(name: "KeyServerClient", package: "KeyServerClient"),
                .product(name: "ChippiPayClient", package: "ChippiPayClient"),
                .product(name: "StarknetCrypto", package: "ChippiPayClient"),
                .product(name: "LLMKeyResolver", package: "LLMKeyResolver"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Tools/opencat",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "AppleJWSBenchmark",
            dependencies: [
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Tools/Benchmarks/AppleJWSBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "StarknetBenchmark",
            dependencies: [
                .product(name: "StarknetCrypto", package: "ChippiPayClient"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Tools/Benchmarks/StarknetBenchmark",
            exclude: ["reference.py"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "KeyVaultBenchmark",
            dependencies: [
                .product(name: "KeyServerClient", package: "KeyServerClient"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatStorage", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tools/Benchmarks/KeyVaultBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "LLMKeysBenchmark",
            dependencies: [
                .product(name: "LLMKeyResolver", package: "LLMKeyResolver"),
                .product(name: "LLMKeyResolverHTTP", package: "LLMKeyResolver"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Tools/Benchmarks/LLMKeysBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ServerBenchmark",
            dependencies: [
                "OpenCatServer",
                "OpenCatServerPostgres",
                .product(name: "KeyServerClient", package: "KeyServerClient"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "OpenCatAsyncHTTPClient", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tools/Benchmarks/ServerBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "RestoreBenchmark",
            dependencies: [
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCat", package: "OpenCatCore"),
            ],
            path: "Tools/Benchmarks/RestoreBenchmark",
            swiftSettings: swiftSettings
        ),
        // The `opencat` command line, run as a user runs it (the built executable, in a child process).
        .testTarget(
            name: "OpenCatCLITests",
            dependencies: [
                .product(name: "StarknetCrypto", package: "ChippiPayClient"),
                .product(name: "KeyServerClient", package: "KeyServerClient"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                "opencat",
                "opencat-server",
                "ToolsTestSupport",
                .product(name: "MockStores", package: "MockStores"),
                .product(name: "MockStoresServer", package: "MockStores"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OpenCatConformance", package: "ConformanceTests"),
            ],
            path: "Tools/Tests/OpenCatCLITests",
            swiftSettings: swiftSettings
        ),
        // Each package's own test target, run from the workspace so that one `swift test` covers everything.
        .testTarget(
            name: "OpenCatCoreTests",
            dependencies: [
                .product(name: "OpenCat", package: "OpenCatCore"),
                .product(name: "OpenCatStorage", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/OpenCatCore/Tests/OpenCatCoreTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StoreAdaptersTests",
            dependencies: [
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/StoreAdapters/Tests/StoreAdaptersTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MockStoresTests",
            dependencies: [
                .product(name: "MockStoresServer", package: "MockStores"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "MockStores", package: "MockStores"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/MockStores/Tests/MockStoresTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MockPackageRegistryTests",
            dependencies: [
                .product(name: "MockPackageRegistry", package: "MockStores"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            path: "Packages/MockStores/Tests/MockPackageRegistryTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OpenCatConformanceTests",
            dependencies: [
                .product(name: "OpenCatConformance", package: "ConformanceTests"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "MockStores", package: "MockStores"),
            ],
            path: "ConformanceTests/Tests/OpenCatConformanceTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "KeyServerClientTests",
            dependencies: [
                .product(name: "KeyServerClient", package: "KeyServerClient"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCat", package: "OpenCatCore"),
                .product(name: "OpenCatStorage", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/KeyServerClient/Tests/KeyServerClientTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ChippiPayClientTests",
            dependencies: [
                .product(name: "ChippiPayClient", package: "ChippiPayClient"),
                .product(name: "StarknetCrypto", package: "ChippiPayClient"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCat", package: "OpenCatCore"),
                .product(name: "OpenCatStorage", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/ChippiPayClient/Tests/ChippiPayClientTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StarknetCryptoTests",
            dependencies: [
                .product(name: "StarknetCrypto", package: "ChippiPayClient"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
            ],
            path: "Packages/ChippiPayClient/Tests/StarknetCryptoTests",
            exclude: ["Vectors"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LLMKeyResolverTests",
            dependencies: [
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "LLMKeyResolver", package: "LLMKeyResolver"),
                .product(name: "LLMKeyResolverPostgres", package: "LLMKeyResolver"),
                .product(name: "LLMKeyResolverHTTP", package: "LLMKeyResolver"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Packages/LLMKeyResolver/Tests/LLMKeyResolverTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OpenCatReleaseTests",
            dependencies: [
                "OpenCatRelease",
                "ToolsTestSupport",
                .product(name: "MockPackageRegistry", package: "MockStores"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Tools/Tests/OpenCatReleaseTests",
            swiftSettings: swiftSettings
        ),
    ]
)
