// swift-tools-version:6.1
// A device app's keys, offline: typed human keys checked on the spot, Ed25519-signed licenses verified with the key
// server's public keys, and a vault that keeps them sealed across launches.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "KeyVault",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "KeyVaultExample", targets: ["KeyVaultExample"])
    ],
    dependencies: [
        .package(path: "../../Packages/KeyServerClient")
    ],
    targets: [
        .target(
            name: "KeyVaultExample",
            dependencies: [
                .product(name: "KeyServerClient", package: "KeyServerClient")
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "KeyVaultExampleTests",
            dependencies: [
                "KeyVaultExample",
                .product(name: "KeyServerClient", package: "KeyServerClient"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
