// swift-tools-version:6.0
import PackageDescription

// Halley on a server: an AsyncHTTPClient requester, a swift-log observer, and tracing
// (swift-distributed-tracing) and metrics (swift-metrics) for calls. A package of
// its own, so the root package keeps no dependencies; it uses the root by path.
let package = Package(
    name: "HalleyServerSide",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "HalleyServerSide", targets: ["HalleyServerSide"])
    ],
    dependencies: [
        .package(name: "Halley", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // async-http-client pulls in swift-distributed-tracing already; named for Tracing.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Named for the modules the requester imports; async-http-client needs them anyway.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.36.0"),
    ],
    targets: [
        .target(
            name: "HalleyServerSide",
            dependencies: [
                .product(name: "Halley", package: "Halley"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "HalleyServerSideTests",
            dependencies: [
                "HalleyServerSide",
                .product(name: "Halley", package: "Halley"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
