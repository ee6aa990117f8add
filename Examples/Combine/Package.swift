// swift-tools-version:6.0
import PackageDescription

// Halley's Combine publishers on Linux: Sources/HalleyCombine is a link to the root
// package's Sources/Halley/Combine, so these are the very files Apple platforms compile into
// Halley, compiled here against OpenCombine (HALLEY_OPENCOMBINE picks its import) into a
// module of their own. A package of its own, so the root package keeps no dependencies.
let package = Package(
    name: "HalleyCombineExample",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Halley", path: "../.."),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        .target(
            name: "HalleyCombine",
            dependencies: [
                .product(name: "Halley", package: "Halley"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            swiftSettings: [.define("HALLEY_OPENCOMBINE")]
        ),
        .testTarget(
            name: "HalleyCombineTests",
            dependencies: [
                "HalleyCombine",
                .product(name: "Halley", package: "Halley"),
                .product(name: "HalleyTesting", package: "Halley"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
