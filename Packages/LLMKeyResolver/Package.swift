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
        .library(name: "LLMKeyResolver", targets: ["LLMKeyResolver"])
    ],
    dependencies: [
        .package(path: "../OpenCatCore")
    ],
    targets: [
        .target(
            name: "LLMKeyResolver",
            dependencies: [
                .product(name: "OpenCatCore", package: "OpenCatCore")
            ],
            swiftSettings: swiftSettings
        )
    ]
)
