// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "KeyServerClient",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "KeyServerClient", targets: ["KeyServerClient"]),
        // The key server's wire contract (every body and answer of keyserver.openapi.yaml): what the client sends and
        // the reference server decodes. No GRDB, no OpenCat.
        .library(name: "KeyServerAPI", targets: ["KeyServerAPI"]),
        // Licences: human keys, signed licences, their offline verifier, issuer and revocation lists. No GRDB, no
        // OpenCat.
        .library(name: "OpenCatLicense", targets: ["OpenCatLicense"]),
    ],
    dependencies: [
        .package(path: "../OpenCatCore"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "OpenCatLicense",
            dependencies: [
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "KeyServerAPI",
            dependencies: [
                "OpenCatLicense",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "KeyServerClient",
            dependencies: [
                "KeyServerAPI",
                "OpenCatLicense",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                // The vault lives in the encrypted cache and its spends in the shared outbox (not the device SDK).
                .product(name: "OpenCatStorage", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "KeyServerClientTests",
            dependencies: [
                "KeyServerClient",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatStorage", package: "OpenCatCore"),
                // The vault and the device SDK sharing one cache file.
                .product(name: "OpenCat", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
