/// Which Apple builds read each folder of the package: the platforms its target is built for.
/// Every folder with Swift files must be listed, so a new target is placed here deliberately.
public struct TargetFolder: Sendable {
    /// The folder, relative to the package root, ending in `/`.
    public let prefix: String
    /// The Apple platforms that build it (Linux, for the count of Apple-only lines, reads all).
    public let platforms: [Platform]
    /// Why those.
    public let why: String
    /// Whether apps ship this code: a required-reason API here needs a privacy manifest.
    public var shipsInApps: Bool = false
}

/// The package's folders and the Apple platforms each one is built for.
public let targetFolders: [TargetFolder] = [
    // The libraries apps link: every Apple platform the package declares; they ship in apps
    // (HalleyTesting in their test bundles), so they are held to the privacy manifest too.
    TargetFolder(prefix: "Sources/Halley/", platforms: Platform.apple, why: "the library apps link", shipsInApps: true),
    TargetFolder(
        prefix: "Sources/HalleyHAL/", platforms: Platform.apple, why: "the library apps link", shipsInApps: true),
    TargetFolder(
        prefix: "Sources/HalleyTransport/", platforms: Platform.apple, why: "the library apps link", shipsInApps: true),
    TargetFolder(
        prefix: "Sources/HalleyTesting/", platforms: Platform.apple, why: "the test kit apps' tests link",
        shipsInApps: true),
    // Command-line tools: built for the Mac only (apps on the other platforms have no
    // command line to run them from).
    TargetFolder(prefix: "Sources/halley/", platforms: [.macOS], why: "a command-line tool"),
    TargetFolder(prefix: "Sources/halley-bench/", platforms: [.macOS], why: "a command-line tool"),
    TargetFolder(prefix: "Sources/halley-transport-probe/", platforms: [.macOS], why: "a command-line tool"),
    // The snippet and migration tests use the libraries alone, as an app's code would: every
    // Apple platform, so the documents' code is read as an iPhone or watch app would read it.
    TargetFolder(
        prefix: "Tests/ReadmeSnippetTests/", platforms: Platform.apple, why: "README's code, as an app has it"),
    TargetFolder(prefix: "Tests/ArticleSnippetTests/", platforms: Platform.apple, why: "DocC's code, as an app has it"),
    TargetFolder(prefix: "Tests/HalleyMigrationTests/", platforms: Platform.apple, why: "migrating apps' code"),
    TargetFolder(prefix: "Tests/HalleyMigrationSwift6Tests/", platforms: Platform.apple, why: "migrating apps' code"),
    // The other tests start processes (Foundation's Process, posix_spawn) and servers: run on
    // the Mac (`swift test`), not in a simulator.
    TargetFolder(prefix: "Tests/HalleyTestSupport/", platforms: [.macOS], why: "starts processes and servers"),
    // HalleyHAL's tests and their fixture reader read the repository's Fixtures/ by path: the
    // Mac's `swift test`, not a simulator.
    TargetFolder(prefix: "Tests/HalleyTestFixtures/", platforms: [.macOS], why: "reads Fixtures/ by path"),
    TargetFolder(prefix: "Tests/HalleyHALTests/", platforms: [.macOS], why: "reads Fixtures/ by path"),
    TargetFolder(prefix: "Tests/HalleyTests/", platforms: [.macOS], why: "links HalleyTestSupport"),
    TargetFolder(prefix: "Tests/HalleyEndToEndTests/", platforms: [.macOS], why: "starts processes and servers"),
    TargetFolder(prefix: "Tests/HalleyTimingTests/", platforms: [.macOS], why: "starts processes and servers"),
    // libFuzzer harnesses, built by Tests/Fuzz/run-fuzzers.sh with the Linux toolchain only.
    TargetFolder(prefix: "Tests/Fuzz/", platforms: [], why: "libFuzzer harnesses, built on Linux only"),
]

/// The folder entry `path` (relative to the package root) belongs to, if any.
public func targetFolder(of path: String) -> TargetFolder? {
    targetFolders.first { path.hasPrefix($0.prefix) }
}
