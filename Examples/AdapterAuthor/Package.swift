// swift-tools-version:6.1
// An adapter author's package: a sixth, fictional store ("Example Store") written against the public API of
// StoreAdapters and OpenCatCore, proved with the same conformance suite as the five built-in stores.
//
// The adapter (the product) depends on StoreAdapters and OpenCatCore only; the conformance suite, with its mock store
// server, is a dependency of the tests alone. Here the OpenCat packages are path dependencies (the example builds in
// the repository's CI); a package of your own names them by registry identity instead:
//
//     .package(id: "opencat.StoreAdapters", from: "0.1.0"),
//     .package(id: "opencat.OpenCatConformance", from: "0.1.0"),
//
// and `package: "opencat.StoreAdapters"` in the product references (Packages/README and docs/RELEASING.md).
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "AdapterAuthor",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // Dynamic, so that the adapter has a link list of its own: CI reads it to show that the adapter links no
        // mock store, no Hummingbird and no test support (Tools/ci/check-architecture.sh --example-linked).
        .library(name: "ExampleStore", type: .dynamic, targets: ["ExampleStore"])
    ],
    dependencies: [
        .package(path: "../../Packages/OpenCatCore"),
        .package(path: "../../Packages/StoreAdapters"),
        .package(path: "../../ConformanceTests"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .target(
            name: "ExampleStore",
            dependencies: [
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ExampleStoreTests",
            dependencies: [
                "ExampleStore",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatConformance", package: "ConformanceTests"),
            ],
            // Read from the source tree through #filePath, as `ConformanceSuite(cassetteFolders:)` takes folders.
            exclude: ["Cassettes"],
            swiftSettings: swiftSettings
        ),
    ]
)
