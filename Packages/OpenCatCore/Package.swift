// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "OpenCatCore",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // The shared kernel: models, proofs, money, secrets, clocks, transport, retry, errors, the verifier seam.
        // No GRDB: what servers and sibling packages import.
        .library(name: "OpenCatCore", targets: ["OpenCatCore"]),
        // The device SDK: the OpenCat facade, outbox, delivery, offerings, expiry, encrypted cache, server connector.
        .library(name: "OpenCat", targets: ["OpenCat"]),
        // The OpenCat server API's wire shapes (docs/api/opencat-server.md): what the SDK's server connector sends and
        // the reference server decodes. No GRDB.
        .library(name: "OpenCatServerAPI", targets: ["OpenCatServerAPI"]),
        // Device storage: the encrypted cache and the namespaced durable outbox (GRDB). What the device SDK, the key
        // vault and the ChippiPay purchase flow keep their state and their undelivered work in.
        .library(name: "OpenCatStorage", targets: ["OpenCatStorage"]),
        // Test support: ManualClock, ScriptedTransport, LogCapture, TestStoreClient. Never in a shipping target.
        .library(name: "OpenCatTesting", targets: ["OpenCatTesting"]),
        // The server transport: AsyncHTTPClient (NIO). Apps keep URLSession and do not link it.
        .library(name: "OpenCatAsyncHTTPClient", targets: ["OpenCatAsyncHTTPClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .target(
            name: "OpenCatCore",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "OpenCatStorage",
            dependencies: [
                "OpenCatCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "OpenCatServerAPI",
            dependencies: ["OpenCatCore"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "OpenCat",
            dependencies: [
                "OpenCatCore",
                "OpenCatServerAPI",
                "OpenCatStorage",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "OpenCatTesting",
            dependencies: [
                "OpenCatCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "OpenCatAsyncHTTPClient",
            dependencies: [
                "OpenCatCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OpenCatCoreTests",
            dependencies: [
                "OpenCatCore",
                "OpenCat",
                "OpenCatStorage",
                "OpenCatTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
