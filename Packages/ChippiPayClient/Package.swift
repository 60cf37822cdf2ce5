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
        .library(name: "ChippiPayClient", targets: ["ChippiPayClient"]),
        // Starknet field, curve, ECDSA, Pedersen, Poseidon, Keccak, transaction and SNIP-12 hashing: pure Swift,
        // no I/O, usable on Linux without the ChippiPay client.
        .library(name: "StarknetCrypto", targets: ["StarknetCrypto"]),
    ],
    dependencies: [
        .package(path: "../OpenCatCore"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "StarknetCrypto",
            dependencies: [
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ChippiPayClient",
            dependencies: [
                "StarknetCrypto",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                // The purchase state machine and the wallet live in the encrypted cache (not the device SDK).
                .product(name: "OpenCatStorage", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ChippiPayClientTests",
            dependencies: [
                "ChippiPayClient",
                "StarknetCrypto",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
                .product(name: "OpenCatStorage", package: "OpenCatCore"),
                .product(name: "OpenCatTesting", package: "OpenCatCore"),
                .product(name: "Crypto", package: "swift-crypto"),
                // The PIN-search test decrypts single AES-CBC blocks, as an attacker would.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StarknetCryptoTests",
            dependencies: [
                "StarknetCrypto",
                .product(name: "OpenCatCore", package: "OpenCatCore"),
            ],
            exclude: ["Vectors"],
            swiftSettings: swiftSettings
        ),
    ]
)
