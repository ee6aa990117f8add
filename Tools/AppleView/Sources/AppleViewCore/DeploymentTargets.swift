import Foundation
import SwiftIfConfig

/// The oldest version of each Apple platform the package supports: its `Package.swift`'s
/// `platforms:`. An API introduced later needs an `@available` or `#available` around it.
public struct DeploymentTargets: Sendable, Equatable {
    /// The deployment target of each Apple platform.
    public var versions: [Platform: VersionTuple]

    /// Targets given directly (for tests).
    public init(_ versions: [Platform: VersionTuple]) {
        self.versions = versions
    }

    /// The targets a manifest's text declares, such as `.macOS(.v14)`, `.iOS("17.0")` or
    /// `.watchOS(.v10_2)`.
    ///
    /// - Throws: ``DeploymentTargetsError`` when an Apple platform is missing: the tool checks
    ///   against what the package says, never against a default of its own.
    public init(manifest: String) throws {
        var versions: [Platform: VersionTuple] = [:]
        for platform in Platform.apple {
            // `.macOS(.v14)`, `.macOS(.v10_15)` or `.macOS("14.0")`.
            let pattern = #"\.\#(platform.rawValue)\(\s*(?:\.v(\d+(?:_\d+)*)|"(\d+(?:\.\d+)*)")\s*\)"#
            let expression = try NSRegularExpression(pattern: pattern)
            let range = NSRange(manifest.startIndex..., in: manifest)
            guard let match = expression.firstMatch(in: manifest, range: range) else {
                throw DeploymentTargetsError(
                    message: "Package.swift declares no \(platform.rawValue) deployment target")
            }
            let text = [1, 2].compactMap { Range(match.range(at: $0), in: manifest).map { manifest[$0] } }.first ?? ""
            guard let version = VersionTuple(parsing: text.replacingOccurrences(of: "_", with: ".")) else {
                throw DeploymentTargetsError(message: "cannot read the \(platform.rawValue) version \(text)")
            }
            versions[platform] = version
        }
        self.versions = versions
    }

    /// The deployment target of `platform`; Linux has none (every API there is available).
    public subscript(platform: Platform) -> VersionTuple? {
        versions[platform]
    }

    /// The targets as the manifest would list them: `macOS 14, iOS 17, tvOS 17, watchOS 10`.
    public var description: String {
        Platform.apple.compactMap { platform in versions[platform].map { "\(platform.rawValue) \(versionText($0))" } }
            .joined(separator: ", ")
    }
}

/// A manifest whose deployment targets cannot be read.
public struct DeploymentTargetsError: Error, CustomStringConvertible {
    /// What is wrong.
    public let message: String

    /// The message.
    public var description: String { message }
}
