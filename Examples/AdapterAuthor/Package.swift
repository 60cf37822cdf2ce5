// swift-tools-version:6.1
// An adapter author's package: a sixth, fictional store ("Example Store") written against the public API of
// StoreAdapters and OpenCatCore, proved with the same conformance suite as the five built-in stores.
import Foundation
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// The OpenCat workspace (the repository root) is a path dependency, and SwiftPM names a path dependency after the
// last component of its path: whatever folder the repository was cloned into. Computed, so any clone works.
let workspace = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Examples/AdapterAuthor
    .deletingLastPathComponent()  // Examples
    .deletingLastPathComponent()  // the repository root
    .lastPathComponent

let package = Package(
    name: "AdapterAuthor",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "ExampleStore", targets: ["ExampleStore"])
    ],
    dependencies: [
        .package(path: "../..")
    ],
    targets: [
        .target(
            name: "ExampleStore",
            dependencies: [
                .product(name: "OpenCatConformance", package: workspace)
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ExampleStoreTests",
            dependencies: [
                "ExampleStore",
                .product(name: "OpenCatConformance", package: workspace),
            ],
            // Read from the source tree through #filePath, as `ConformanceSuite(cassetteFolders:)` takes folders.
            exclude: ["Cassettes"],
            swiftSettings: swiftSettings
        ),
    ]
)
