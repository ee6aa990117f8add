// swift-tools-version:6.0
import PackageDescription

// The Apple view of Halley's sources (`.ci/run`'s `apple-view` step): reads Sources and
// Tests as macOS, iOS, tvOS and watchOS builds would see them, with swift-syntax's
// SwiftIfConfig evaluating each `#if`, and fails on API those builds would reject. A package
// of its own so the root package keeps no dependencies; swift-syntax comes from the local
// package copies.
let package = Package(
    name: "AppleView",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "apple-view", targets: ["apple-view"])
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "602.0.0")
    ],
    targets: [
        // The checks, a library so the tests can drive them on fixture snippets.
        .target(
            name: "AppleViewCore",
            dependencies: [
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftIfConfig", package: "swift-syntax"),
            ]
        ),
        .executableTarget(name: "apple-view", dependencies: ["AppleViewCore"]),
        .testTarget(name: "AppleViewTests", dependencies: ["AppleViewCore"]),
    ],
    swiftLanguageModes: [.v6]
)
