// swift-tools-version:6.2
import PackageDescription

// Halley used from a module built as Xcode 26 makes a new app target: Swift 6.2's default
// main-actor isolation and its "approachable concurrency" (nonisolated async functions run on
// their caller's actor, conformances of main-actor types are isolated to it), `.ci/run`'s
// main-actor step. Tests/ReadmeSnippets and Tests/ArticleSnippets are links to
// the root package's snippet targets, so every README and DocC block, and the resource-state
// article's app scenario, compile and run in that mode too, a new snippet included with no
// change here. A package of its own: the root package's targets keep the default
// (nonisolated) mode, which most server code and libraries build in.
let appTargetSettings: [SwiftSetting] = [
    .defaultIsolation(MainActor.self),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    // Implied by main-actor default isolation; named, as Xcode's build setting names it.
    .enableUpcomingFeature("InferIsolatedConformances"),
]

let package = Package(
    name: "MainActorApp",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    dependencies: [
        .package(name: "Halley", path: "../..")
    ],
    targets: [
        .testTarget(
            name: "MainActorReadmeSnippets",
            dependencies: [
                .product(name: "Halley", package: "Halley"),
                .product(name: "HalleyTesting", package: "Halley"),
            ],
            path: "Tests/ReadmeSnippets",
            swiftSettings: appTargetSettings
        ),
        .testTarget(
            name: "MainActorArticleSnippets",
            dependencies: [
                .product(name: "Halley", package: "Halley"),
                .product(name: "HalleyTesting", package: "Halley"),
            ],
            path: "Tests/ArticleSnippets",
            swiftSettings: appTargetSettings
        ),
        // That the mode is on (code that compiles only in it), and what an app relies on.
        .testTarget(
            name: "MainActorModeTests",
            dependencies: [
                .product(name: "Halley", package: "Halley"),
                .product(name: "HalleyTesting", package: "Halley"),
            ],
            swiftSettings: appTargetSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
