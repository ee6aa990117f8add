// swift-tools-version:6.0
import PackageDescription

// The Apple-only code of URLSessionRequester type-checked on Linux (`.ci/run`'s "apple
// stand-ins" step). Sources/HalleyAppleBranches links the very files of the root package
// (Sources/HalleyTransport/URLSession/URLSessionAppleSecurity.swift and the few files it
// uses, HalleyHAL's in a module of that name), and
// Sources/Security declares, by hand, the Security, CoreFoundation and URLSession API those
// files call on Apple platforms, with the signatures of Apple's headers. A call renamed, a
// label or an argument wrong, a type that does not fit: the build fails. Nothing here runs or
// ships, and the package has no dependencies.
let package = Package(
    name: "AppleStandIns",
    targets: [
        // Named as Apple's framework, so `canImport(Security)` and `import Security` in the
        // linked files find it.
        .target(name: "Security"),
        // The root package's HalleyHAL files the linked ones use, as a module of that name, so
        // their `import HalleyHAL` and `package` access read as in the root package.
        .target(name: "HalleyHAL"),
        .target(
            name: "HalleyAppleBranches",
            dependencies: ["HalleyHAL", "Security"],
            swiftSettings: [.define("HALLEY_APPLE_STANDINS")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
