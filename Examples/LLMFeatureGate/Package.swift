// swift-tools-version:6.1
// The app side of LLM provider keys by plan tier: the design's three scenarios as screens, over LLMKeyResolver's
// client alone.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "LLMFeatureGate",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "LLMFeatureGateExample", targets: ["LLMFeatureGateExample"])
    ],
    dependencies: [
        .package(path: "../../Packages/LLMKeyResolver")
    ],
    targets: [
        .target(
            name: "LLMFeatureGateExample",
            dependencies: [
                .product(name: "LLMKeyResolver", package: "LLMKeyResolver")
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LLMFeatureGateExampleTests",
            dependencies: [
                "LLMFeatureGateExample",
                .product(name: "LLMKeyResolver", package: "LLMKeyResolver"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
