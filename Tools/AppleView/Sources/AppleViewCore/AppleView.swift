import Foundation
import SwiftIfConfig
import SwiftSyntax

/// What one platform's build reads: its files and how many of their lines only an Apple
/// build reads.
public struct PlatformSummary: Sendable {
    /// The platform.
    public let platform: Platform
    /// Its deployment target.
    public let target: VersionTuple
    /// How many files its build reads.
    public let files: Int
    /// The lines of code active in this platform's build and in no Linux build: code Linux CI
    /// never type-checks.
    public let appleOnlyLines: Int
    /// Those lines, file by file (only files that have some).
    public let appleOnlyLinesByFile: [String: Int]
}

/// The Apple view of a set of sources: the findings, and each platform's summary.
public struct Report: Sendable {
    /// Every finding, sorted.
    public let findings: [Finding]
    /// One summary per Apple platform.
    public let summaries: [PlatformSummary]
    /// The deployment targets checked against.
    public let targets: DeploymentTargets
}

/// Reads sources as macOS, iOS, tvOS and watchOS builds would see them.
public enum AppleView {
    /// Checks `files` (paths relative to the package root, with their text) against
    /// `targets`, each file as the builds its folder is listed for read it.
    public static func check(_ files: [(path: String, text: String)], targets: DeploymentTargets) -> Report {
        var findings: [Finding] = []
        var listed: [(path: String, text: String, folder: TargetFolder)] = []
        for (path, text) in files {
            guard let folder = targetFolder(of: path) else {
                findings.append(
                    Finding(
                        path: path, line: 1, platform: "all", what: "no build is known to read this file",
                        why: "list its folder, with the platforms its target is built for, in TargetTable.swift"))
                continue
            }
            if !folder.platforms.isEmpty { listed.append((path, text, folder)) }
        }
        let known = listed
        let parsed = parallelMap(known.count) { index in
            SourceFile(path: known[index].path, text: known[index].text)
        }

        // Each build on its own core: Linux's (only the lines it reads, to tell which only
        // Apple's read) and each Apple platform's.
        let builds: [Platform] = [.linux] + Platform.apple.filter { targets[$0] != nil }
        let views = parallelMap(builds.count) { index -> PlatformView in
            let platform = builds[index]
            let reading = parsed.indices.filter { platform == .linux || known[$0].folder.platforms.contains(platform) }
            return PlatformView(
                platform: platform, target: targets[platform], files: reading.map { parsed[$0] },
                shipsInApps: reading.map { known[$0].folder.shipsInApps })
        }

        let linuxLines = views.first { $0.platform == .linux }?.activeLines ?? [:]
        var summaries: [PlatformSummary] = []
        for view in views {
            findings += view.findings
            guard let target = view.target else { continue }
            var appleOnly: [String: Int] = [:]
            for (path, lines) in view.activeLines {
                let only = lines.subtracting(linuxLines[path] ?? [])
                if !only.isEmpty { appleOnly[path] = only.count }
            }
            summaries.append(
                PlatformSummary(
                    platform: view.platform, target: target, files: view.activeLines.count,
                    appleOnlyLines: appleOnly.values.reduce(0, +), appleOnlyLinesByFile: appleOnly))
        }
        return Report(findings: Array(Set(findings)).sorted(), summaries: summaries, targets: targets)
    }

    /// Checks every `.swift` file under `folders` (relative to `root`) against the
    /// deployment targets of `root`'s `Package.swift`.
    ///
    /// - Throws: When the manifest or a file cannot be read.
    public static func check(root: URL, folders: [String]) throws -> Report {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let targets = try DeploymentTargets(manifest: manifest)
        var paths: [String] = []
        for folder in folders {
            let base = root.appendingPathComponent(folder)
            guard let enumerator = FileManager.default.enumerator(atPath: base.path) else {
                throw DeploymentTargetsError(message: "cannot read the folder \(folder)")
            }
            for case let relative as String in enumerator where relative.hasSuffix(".swift") {
                paths.append(folder.hasSuffix("/") ? folder + relative : folder + "/" + relative)
            }
        }
        let files = try paths.sorted().map { path in
            (path: path, text: try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8))
        }
        return check(files, targets: targets)
    }
}

/// One platform's build of its files: the findings in code active there, and the lines that
/// code is on. Linux's (no deployment target) only notes lines.
private struct PlatformView: Sendable {
    let platform: Platform
    let target: VersionTuple?
    var findings: [Finding] = []
    var activeLines: [String: Set<Int>] = [:]

    init(platform: Platform, target: VersionTuple?, files: [SourceFile], shipsInApps: [Bool]) {
        self.platform = platform
        self.target = target
        // Pass one: what the package declares, so its own `@available` declarations are
        // checked at their uses too.
        var declarations = Declarations()
        if let target {
            for file in files {
                let collector = DeclarationCollector(platform: platform, target: target, file: file)
                collector.walk(file.tree)
                declarations.merge(collector.declarations)
            }
        }
        let learned = declarations.learned
        for (file, ships) in zip(files, shipsInApps) {
            let checker = UseChecker(
                platform: platform, target: target, file: file, declarations: declarations, learned: learned,
                checks: target != nil, shipsInApps: ships)
            checker.walk(file.tree)
            findings += checker.findings + checker.diagnosticFindings
            activeLines[file.path] = checker.activeLines
        }
    }
}

/// `body` of each index from 0 to `count`, run on every core, in order.
func parallelMap<T: Sendable>(_ count: Int, _ body: @Sendable (Int) -> T) -> [T] {
    let results = Slots<T>(count)
    DispatchQueue.concurrentPerform(iterations: count) { results.set($0, body($0)) }
    return results.values
}

/// The results of `parallelMap`, one slot per index. Unchecked sendability is sound: every
/// access holds the lock, and `values` is read after `concurrentPerform` returned.
private final class Slots<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [T?]

    init(_ count: Int) {
        slots = Array(repeating: nil, count: count)
    }

    func set(_ index: Int, _ value: T) {
        lock.withLock { slots[index] = value }
    }

    var values: [T] {
        lock.withLock { slots.map { $0! } }
    }
}
