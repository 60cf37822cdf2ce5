// swift-tools-version:6.1
// OpenCatConformance: the five-store conformance suite for adapter authors — the scenario catalogue and the recorded
// exchanges of the five built-in stores (bundled), the runner that plays them to any StoreAdapter over real HTTP to a
// mock store on 127.0.0.1, and the reports. Depends only on StoreAdapters, MockStores and OpenCatCore (with its
// testing product).
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "OpenCatConformance",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "OpenCatConformance", targets: ["OpenCatConformance"])
    ],
    dependencies: [
        .package(path: "../Packages/OpenCatCore"),
        .package(path: "../Packages/StoreAdapters"),
        .package(path: "../Packages/MockStores"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .target(
            name: "OpenCatConformance",
            dependencies: [
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "MockStores", package: "MockStores"),
                .product(name: "MockStoresServer", package: "MockStores"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // The five stores' catalogue and cassettes (links to the repository's Fixtures/, made real files when the
            // package is released: `opencat-release archive` and `publish`).
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OpenCatConformanceTests",
            dependencies: [
                "OpenCatConformance",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "MockStores", package: "MockStores"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
