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
        .executable(name: "opencat", targets: ["opencat"]),
        // Runs the conformance suite against any StoreAdapter: for adapter authors.
        .library(name: "OpenCatConformance", targets: ["OpenCatConformance"]),
        // Release engineering for the monorepo's packages (`opencat release …`).
        .library(name: "OpenCatRelease", targets: ["OpenCatRelease"]),
    ],
    dependencies: [
        .package(path: "Packages/OpenCatCore"),
        .package(path: "Packages/StoreAdapters"),
        .package(path: "Packages/MockStores"),
        .package(path: "Packages/KeyServerClient"),
        .package(path: "Packages/ChippiPayClient"),
        .package(path: "Packages/LLMKeyResolver"),
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
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .target(
            name: "OpenCatConformance",
            dependencies: [
                "OpenCatServer",
                .product(name: "ChippiPayClient", package: "ChippiPayClient"),
                .product(name: "StarknetCrypto", package: "ChippiPayClient"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "LLMKeyResolver", package: "LLMKeyResolver"),
                .product(name: "KeyServerClient", package: "KeyServerClient"),
                .product(name: "MockStoresServer", package: "MockStores"),
                .product(name: "OpenCat", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "MockStores", package: "MockStores"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "ConformanceTests/OpenCatConformance",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                .product(name: "ChippiPayClient", package: "ChippiPayClient"),
                .product(name: "StarknetCrypto", package: "ChippiPayClient"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "KeyServerClient", package: "KeyServerClient"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "MockStoresServer", package: "MockStores"),
                .product(name: "OpenCat", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                "OpenCatConformance",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatAsyncHTTPClient", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "MockStores", package: "MockStores"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "ConformanceTests/Suite",
            exclude: ["ExampleStore/Cassettes"],
            swiftSettings: swiftSettings
        ),
        // The reference server: the OpenCat API and the key server on Hummingbird, verifying with StoreAdapters, its
        // ledger on SQLite or PostgreSQL.
        .target(
            name: "OpenCatServer",
            dependencies: [
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "KeyServerClient", package: "KeyServerClient"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tools/server/OpenCatServer",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OpenCatServerTests",
            dependencies: [
                "OpenCatServer",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "OpenCatAsyncHTTPClient", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "KeyServerClient", package: "KeyServerClient"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tools/Tests/OpenCatServerTests",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "OpenCatRelease",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            path: "Tools/release/OpenCatRelease",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "opencat",
            dependencies: [
                "OpenCatRelease",
                "OpenCatServer",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "LLMKeyResolverHTTP", package: "LLMKeyResolver"),
                .product(name: "LLMKeyResolverPostgres", package: "LLMKeyResolver"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MockStoresServer", package: "MockStores"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "MockStores", package: "MockStores"),
                "OpenCatConformance",
                .product(name: "OpenCatAsyncHTTPClient", package: "OpenCatCore"),
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
                .product(name: "OpenCat", package: "OpenCatCore"),
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
            ],
            path: "Tools/Benchmarks/LLMKeysBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ServerBenchmark",
            dependencies: [
                "OpenCatServer",
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
                "opencat",
                .product(name: "MockStores", package: "MockStores"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/Tests/OpenCatCLITests",
            swiftSettings: swiftSettings
        ),
        // Each package's own test target, run from the workspace so that one `swift test` covers everything.
        .testTarget(
            name: "OpenCatCoreTests",
            dependencies: [
                .product(name: "OpenCat", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "AuraLogicExample", package: "OpenCatCore"),
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
            name: "KeyServerClientTests",
            dependencies: [
                .product(name: "KeyServerClient", package: "KeyServerClient"),
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCat", package: "OpenCatCore"),
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
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
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
                .product(name: "LLMFeatureGateExample", package: "LLMKeyResolver"),
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
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            path: "Tools/Tests/OpenCatReleaseTests",
            swiftSettings: swiftSettings
        ),
    ]
)
