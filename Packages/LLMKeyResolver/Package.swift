// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "LLMKeyResolver",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // The resolver, the store protocol, the SQLite store, the cipher, the status model and the app client.
        .library(name: "LLMKeyResolver", targets: ["LLMKeyResolver"]),
        // The PostgreSQL store (postgres-nio), for several backend instances.
        .library(name: "LLMKeyResolverPostgres", targets: ["LLMKeyResolverPostgres"]),
        // The HTTP API over swift-http-types, and a Hummingbird responder.
        .library(name: "LLMKeyResolverHTTP", targets: ["LLMKeyResolverHTTP"]),
    ],
    dependencies: [
        .package(path: "../OpenCatCore"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .target(
            name: "LLMKeyResolver",
            dependencies: [
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LLMKeyResolverPostgres",
            dependencies: [
                "LLMKeyResolver",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LLMKeyResolverHTTP",
            dependencies: [
                "LLMKeyResolver",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LLMKeyResolverTests",
            dependencies: [
                .product(name: "PostgresNIO", package: "postgres-nio"),
                "LLMKeyResolver",
                "LLMKeyResolverPostgres",
                "LLMKeyResolverHTTP",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
