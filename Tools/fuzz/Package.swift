// swift-tools-version:6.1
// The fuzz targets (issue 16): one libFuzzer binary, `OpenCatFuzz`, whose target is chosen by OPENCAT_FUZZ_TARGET.
// Built apart from the workspace (its own scratch path) because every module is compiled with
// `-sanitize=fuzzer,address`: run it through Tools/fuzz/run.sh.
import PackageDescription

let package = Package(
    name: "OpenCatFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../../Packages/OpenCatCore"),
        .package(path: "../../Packages/StoreAdapters"),
        .package(path: "../../Packages/MockStores"),
        .package(path: "../../Packages/KeyServerClient"),
        .package(path: "../../Packages/ChippiPayClient"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .executableTarget(
            name: "OpenCatFuzz",
            dependencies: [
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "StoreAdapters", package: "StoreAdapters"),
                .product(name: "MockStores", package: "MockStores"),
                .product(name: "KeyServerClient", package: "KeyServerClient"),
                .product(name: "ChippiPayClient", package: "ChippiPayClient"),
                .product(name: "StarknetCrypto", package: "ChippiPayClient"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
                .unsafeFlags(["-parse-as-library"]),
            ]
        )
    ]
)
