// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "MockStores",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // In-process: cassettes, the interaction script, store auth checks, MockStoreClient. No Hummingbird.
        .library(name: "MockStores", targets: ["MockStores"]),
        // The loopback HTTP server (Hummingbird) that serves cassettes: for tests over real sockets and `opencat mock`.
        .library(name: "MockStoresServer", targets: ["MockStoresServer"]),
        // A Swift package registry on loopback (SE-0292, SE-0391): for tests that publish and resolve packages.
        .library(name: "MockPackageRegistry", targets: ["MockPackageRegistry"]),
    ],
    dependencies: [
        .package(path: "../OpenCatCore"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
    ],
    targets: [
        .target(
            name: "MockStores",
            dependencies: [
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MockStoresServer",
            dependencies: [
                "MockStores",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MockPackageRegistry",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MockPackageRegistryTests",
            dependencies: [
                "MockPackageRegistry",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MockStoresTests",
            dependencies: [
                "MockStoresServer",
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                "MockStores",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
