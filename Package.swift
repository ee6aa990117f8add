// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Halley",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Halley", targets: ["Halley"]),
        .executable(name: "halley", targets: ["halley"]),
    ],
    // Deliberately empty: Halley depends on Foundation and the toolchain only.
    dependencies: [],
    targets: [
        .target(name: "Halley"),
        .executableTarget(name: "halley", dependencies: ["Halley"]),
        // Not a test: `swift run -c release halley-bench` measures the engine.
        .executableTarget(
            name: "halley-bench", dependencies: ["Halley"], exclude: ["Support/transport_bench_server.py"]),
        .testTarget(
            name: "HalleyTests",
            // The tool is a dependency so its tests can run the built binary.
            dependencies: ["Halley", "halley"],
            exclude: ["Support/hal_test_server.py"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
