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
        .package(path: "../OpenCatCore")
    ],
    targets: [
        .target(
            name: "KeyServerClient",
            dependencies: [
                .product(name: "OpenCatCore", package: "OpenCatCore")
            ],
            swiftSettings: swiftSettings
        )
    ]
)
