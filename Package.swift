// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Halley",
    // The releases that have Observation (ResourceModel is `@Observable`); newer API (task
    // executors, 128-bit integers) is used under `@available`. `.ci/run`'s apple-view step
    // checks the sources against these (Tools/AppleView).
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "Halley", targets: ["Halley"]),
        // The lower layers on their own, for code that needs only them: HAL documents, JSON,
        // links and URI templates (a server that builds HAL, Foundation only), and the
        // requesters (someone writing one). `import Halley` brings both.
        .library(name: "HalleyHAL", targets: ["HalleyHAL"]),
        .library(name: "HalleyTransport", targets: ["HalleyTransport"]),
        // A HAL API declared in Swift, served in memory or on a loopback socket, for testing
        // code that uses Halley; no dependencies either.
        .library(name: "HalleyTesting", targets: ["HalleyTesting"]),
        .executable(name: "halley", targets: ["halley"]),
    ],
    // Deliberately empty: Halley depends on Foundation and the toolchain only.
    dependencies: [],
    targets: [
        // Three modules, so the compiler keeps the layers (README, Architecture): a lower one
        // cannot name a higher one. They share what users need not see with `package` access.
        // HalleyHAL: values, JSON, URI templates, the HAL model, include paths, the error type;
        // Foundation only (no FoundationNetworking, no C).
        .target(name: "HalleyHAL"),
        // HalleyTransport: the requester protocol and the requesters, TLS, proxies, redirects,
        // credential scope.
        .target(name: "HalleyTransport", dependencies: ["HalleyHAL", "CHalleyCurl"]),
        // Halley: the pipeline, traversal, typed layer, actions, forms, state; re-exports both.
        .target(name: "Halley", dependencies: ["HalleyHAL", "HalleyTransport"]),
        // libcurl opened at run time with our own declarations: no headers, no link-time
        // dependency, no set-up step (see Sources/CHalleyCurl/include/CHalleyCurl.h).
        .target(name: "CHalleyCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "HalleyTesting", dependencies: ["Halley"]),
        .executableTarget(name: "halley", dependencies: ["Halley"]),
        // Not a test: `swift run -c release halley-bench` measures the engine.
        // CHalleyCurl for its baseline: libcurl driven directly, loaded as Halley loads it.
        .executableTarget(name: "halley-bench", dependencies: ["Halley", "CHalleyCurl"]),
        // Not a product: the transport tests run one request per process through it, so the
        // kernel can measure that process's peak memory.
        .executableTarget(name: "halley-transport-probe", dependencies: ["Halley"]),
        // Helpers the test targets share (servers, fixtures, requesters, the tool's runner):
        // a regular target, so only Halley's public API; built by `swift build` too. The
        // Python servers are started from their files here, not compiled.
        // The fixture reader alone (Fixtures/), with no dependencies, for HalleyHALTests;
        // HalleyTestSupport re-exports it.
        .target(name: "HalleyTestFixtures", path: "Tests/HalleyTestFixtures"),
        .target(
            name: "HalleyTestSupport",
            dependencies: ["Halley", "HalleyTestFixtures"],
            path: "Tests/HalleyTestSupport",
            exclude: [
                "hal_test_server.py", "hostile_http_server.py", "chaos_http_server.py", "loopback_server.py",
                "tls_test_server.py",
            ]
        ),
        // Three test targets, run in three processes by `.ci/test` (one `swift test` runs them
        // all in one): fast unit tests (no sockets, no processes, no time limits); end-to-end
        // suites against loopback servers and the built tools; and the time-limit and load
        // suites, apart so that no timing check shares a process with a suite that loads the
        // machine on purpose.
        // HalleyHAL's own tests: JSON, URI templates, the HAL model, include paths. Only that
        // module and the fixtures: no sockets, no processes, seconds to build and run.
        .testTarget(
            name: "HalleyHALTests",
            dependencies: ["HalleyHAL", "HalleyTestFixtures"]
        ),
        .testTarget(
            name: "HalleyTests",
            dependencies: ["Halley", "HalleyHAL", "HalleyTransport", "HalleyTestSupport", "HalleyTesting"]
        ),
        .testTarget(
            name: "HalleyEndToEndTests",
            // The tool and the probe are dependencies so the tests can run the built binaries.
            dependencies: [
                "Halley", "HalleyHAL", "HalleyTransport", "HalleyTestSupport", "HalleyTesting", "halley",
                "halley-transport-probe",
            ]
        ),
        .testTarget(
            name: "HalleyTimingTests",
            dependencies: [
                "Halley", "HalleyHAL", "HalleyTransport", "HalleyTestSupport", "halley", "halley-transport-probe",
            ]
        ),
        // The original Halley's README snippets, verbatim: built in Swift 5 mode, as most
        // migrating iOS apps build, and again in Swift 6 mode.
        .testTarget(
            name: "HalleyMigrationTests",
            dependencies: ["Halley"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "HalleyMigrationSwift6Tests",
            dependencies: ["Halley"]
        ),
        // Every Swift block of README.md, and of the DocC catalog, compiled (and run where it
        // takes its manager from the reader); ReadmeSnippetTests' SnippetSyncTests holds the
        // copies to the documents line for line. Two targets, so each document set has its
        // own namespace for the models it declares.
        .testTarget(
            name: "ReadmeSnippetTests",
            dependencies: ["Halley", "HalleyTesting"]
        ),
        .testTarget(
            name: "ArticleSnippetTests",
            dependencies: ["Halley", "HalleyTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
