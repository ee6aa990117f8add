import SwiftIfConfig
import SwiftSyntax

/// A platform whose build the tool describes: the four Apple platforms Halley supports, and
/// Linux, the one CI builds on, to tell which lines only an Apple build reads.
public enum Platform: String, CaseIterable, Sendable, Comparable {
    case macOS
    case iOS
    case tvOS
    case watchOS
    case linux = "Linux"

    /// The Apple platforms, in the order findings and counts are printed.
    public static let apple: [Platform] = [.macOS, .iOS, .tvOS, .watchOS]

    /// Whether the platform is one of Apple's.
    public var isApple: Bool { self != .linux }

    /// Orders the platforms as ``allCases`` lists them.
    public static func < (lhs: Platform, rhs: Platform) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A build of Halley's sources for one platform, as `#if` sees it: what `os(...)`,
/// `canImport(...)`, `arch(...)` and the rest answer there.
///
/// What does not depend on the platform (the compiler and language versions, `DEBUG`, the
/// features) is answered alike for every platform, so that the lines counted as active only
/// on Apple differ by platform alone.
public struct ViewConfiguration: BuildConfiguration, Sendable {
    /// The platform this build is for.
    public let platform: Platform

    /// A build for `platform`.
    public init(_ platform: Platform) {
        self.platform = platform
    }

    /// Modules an `import` finds on every Apple platform's SDK (and in the toolchain there).
    private static let appleModules: Set<String> = [
        "Swift", "Foundation", "Darwin", "Dispatch", "Observation", "Combine", "Security", "Network", "SwiftUI",
        "Synchronization", "os", "CFNetwork", "CryptoKit", "SQLite3", "XCTest", "Testing", "_Concurrency",
    ]

    /// Modules only some Apple platforms have.
    private static let platformModules: [Platform: Set<String>] = [
        .macOS: ["AppKit"],
        .iOS: ["UIKit"],
        .tvOS: ["UIKit"],
        .watchOS: ["WatchKit"],
    ]

    /// Modules the Linux toolchain has (Swift 6.x with swift-corelibs-foundation).
    private static let linuxModules: Set<String> = [
        "Swift", "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Glibc", "Dispatch",
        "Observation", "Synchronization", "XCTest", "Testing", "_Concurrency",
    ]

    /// Modules no build of ours can import on any of these platforms: asked about, answered no.
    private static let absentEverywhere: Set<String> = ["Musl", "Android", "Bionic", "WinSDK", "ucrt", "OpenCombine"]

    /// The package's own modules (and its C module): importable wherever the package builds.
    private static let ownModules: Set<String> = ["Halley", "HalleyTesting", "CHalleyCurl", "HalleyTestSupport"]

    /// Custom conditions (`-D`) the tool reads as set: `DEBUG`, as in the debug builds CI
    /// type-checks. Any other (such as `HALLEY_OPENCOMBINE`, set only by Examples/Combine) is
    /// unset, as the compiler has it.
    private static let customConditions: Set<String> = ["DEBUG"]

    /// Every module an `import` finds on `platform`.
    public var importableModules: Set<String> {
        var modules = Self.ownModules
        if platform.isApple {
            modules.formUnion(Self.appleModules)
            modules.formUnion(Self.platformModules[platform] ?? [])
        } else {
            modules.formUnion(Self.linuxModules)
        }
        return modules
    }

    /// `DEBUG`, and nothing else.
    public func isCustomConditionSet(name: String) throws -> Bool {
        Self.customConditions.contains(name)
    }

    /// The Swift 6 language mode's features (none of the code asks today).
    public func hasFeature(name: String) throws -> Bool {
        ["StrictConcurrency", "GlobalConcurrency", "InferSendableFromCaptures", "IsolatedDefaultValues"].contains(name)
    }

    /// Attributes every Swift 6 compiler knows; an unknown name is answered no.
    public func hasAttribute(name: String) throws -> Bool {
        ["available", "MainActor", "Sendable", "preconcurrency", "retroactive", "unchecked"].contains(name)
    }

    /// Whether `canImport` finds the module here. A module the tool has no answer for is an
    /// error, so that a new `canImport` is described here before it is trusted.
    public func canImport(importPath: [(TokenSyntax, String)], version: CanImportVersion) throws -> Bool {
        let name = importPath.map(\.1).joined(separator: ".")
        let top = importPath.first?.1 ?? name
        if importableModules.contains(top) { return true }
        let known = Self.appleModules.union(Self.linuxModules).union(Self.absentEverywhere)
            .union(Self.platformModules.values.joined())
        if known.contains(top) { return false }
        throw ViewConfigurationError(
            message: "the Apple view does not know whether \(name) can be imported; add it to ViewConfiguration")
    }

    /// `macOS` (or its old name `OSX`), `iOS`, `tvOS`, `watchOS` or `Linux`: this platform's.
    public func isActiveTargetOS(name: String) throws -> Bool {
        switch platform {
        case .macOS: name == "macOS" || name == "OSX"
        case .iOS, .tvOS, .watchOS, .linux: name == platform.rawValue
        }
    }

    /// Apple silicon (arm64) for macOS, iOS and tvOS; arm64_32 for watchOS's devices;
    /// x86_64 for Linux, as on the CI machine.
    public func isActiveTargetArchitecture(name: String) throws -> Bool {
        switch platform {
        case .macOS, .iOS, .tvOS: name == "arm64"
        case .watchOS: name == "arm64_32"
        case .linux: name == "x86_64"
        }
    }

    /// A device build: neither `simulator` nor `macCatalyst`.
    public func isActiveTargetEnvironment(name: String) throws -> Bool {
        false
    }

    /// The Objective-C runtime on Apple platforms, the native one on Linux.
    public func isActiveTargetRuntime(name: String) throws -> Bool {
        name == (platform.isApple ? "_ObjC" : "_Native")
    }

    /// No pointer authentication (arm64e is for the system's own code).
    public func isActiveTargetPointerAuthentication(name: String) throws -> Bool {
        false
    }

    /// 32 bits on watchOS's arm64_32, 64 elsewhere.
    public var targetPointerBitWidth: Int { platform == .watchOS ? 32 : 64 }

    /// Atomics up to twice the pointer width.
    public var targetAtomicBitWidths: [Int] { platform == .watchOS ? [8, 16, 32, 64] : [8, 16, 32, 64, 128] }

    /// Little-endian everywhere.
    public var endianness: Endianness { .little }

    /// The Swift 6 language mode, the package's.
    public var languageVersion: VersionTuple { VersionTuple(6, 0) }

    /// Swift 6.3, the CI toolchain's, for every platform: a `compiler(...)` check reads the
    /// same everywhere, so it never counts as Apple-only.
    public var compilerVersion: VersionTuple { VersionTuple(6, 3) }
}

/// A question the configuration cannot answer; SwiftIfConfig reports it at the `#if` that
/// asked, and the tool prints it as a finding.
public struct ViewConfigurationError: Error, CustomStringConvertible {
    /// What is not known.
    public let message: String

    /// The message.
    public var description: String { message }
}
