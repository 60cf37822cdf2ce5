// swift-tools-version:6.1
// An app integrator: the OpenCat device SDK alone, gating a puzzle game's levels on a non-consumable full unlock.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "DeviceApp",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "AuraLogicExample", targets: ["AuraLogicExample"])
    ],
    dependencies: [
        .package(path: "../../Packages/OpenCatCore")
    ],
    targets: [
        .target(
            name: "AuraLogicExample",
            dependencies: [
                .product(name: "OpenCat", package: "OpenCatCore")
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AuraLogicExampleTests",
            dependencies: [
                "AuraLogicExample",
                .product(name: "OpenCat", package: "OpenCatCore"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
