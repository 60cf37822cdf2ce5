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
        .library(name: "KeyServerClient", targets: ["KeyServerClient"])
    ],
    dependencies: [
        .package(path: "../OpenCatCore"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "KeyServerClient",
            dependencies: [
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                // The vault lives in OpenCat's encrypted cache (a sibling that needs the cache imports OpenCat).
                .product(name: "OpenCat", package: "OpenCatCore"),
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
