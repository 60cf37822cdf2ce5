// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ChippiPayClient",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "ChippiPayClient", targets: ["ChippiPayClient"])
    ],
    dependencies: [
        .package(path: "../OpenCatCore")
    ],
    targets: [
        .target(
            name: "ChippiPayClient",
            dependencies: [
                .product(name: "OpenCatCore", package: "OpenCatCore")
            ],
            swiftSettings: swiftSettings
        )
    ]
)
