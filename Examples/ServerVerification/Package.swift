// swift-tools-version:6.1
// A server-side integrator: verifies purchases from any of the five stores with StoreAdapters alone, and decides
// what each one unlocks; handles Stripe webhooks.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ServerVerification",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "ServerVerification", targets: ["ServerVerification"])
    ],
    dependencies: [
        .package(path: "../../Packages/StoreAdapters")
    ],
    targets: [
        .target(
            name: "ServerVerification",
            dependencies: [
                .product(name: "StoreAdapters", package: "StoreAdapters")
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ServerVerificationTests",
            dependencies: [
                "ServerVerification",
                .product(name: "StoreAdapters", package: "StoreAdapters"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
