import Foundation
import Halley
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What one run of the `halley` binary produced.
public struct CLIResult: Sendable, CustomStringConvertible {
    /// The arguments it ran with, for failure messages.
    public let arguments: [String]
    /// The exit status (or the signal number when ``crashed``).
    public let status: Int32
    /// Whether the process died of a signal (a Swift trap or a crash), never acceptable.
    public let crashed: Bool
    /// Everything written to stdout.
    public let stdout: String
    /// Everything written to stderr.
    public let stderr: String

    /// stderr split into lines, without the final empty one.
    public var stderrLines: [String] {
        stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast(stderr.hasSuffix("\n") ? 1 : 0)
            .map(String.init)
    }

    /// stdout parsed with the library's own JSON reader.
    public func json(sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        do {
            return try JSONValue(parsing: Data(stdout.utf8))
        } catch {
            Issue.record("stdout of \(self) is not JSON: \(error)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// `halley ARGS -> status`, with both streams, for test failure messages.
    public var description: String {
        "halley \(arguments.joined(separator: " ")) -> \(crashed ? "signal" : "status") \(status)\n"
            + "--- stdout ---\n\(stdout.prefix(2_000))\n--- stderr ---\n\(stderr.prefix(2_000))"
    }
}

/// Why a run could not complete.
public struct CLIRunError: Error, CustomStringConvertible {
    public let description: String
}

/// Runs the built `halley` executable as a separate process, as a script would.
public enum CLIRunner {
    /// The repository root, from this file (`Tests/HalleyTestSupport/CLIRunner.swift`).
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // HalleyTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// `Fixtures/api`, absolute, so the tests run from any working directory.
    public static let fixtures = repositoryRoot.appendingPathComponent("Fixtures/api").path

    /// The base URL the fixture documents are requested under (the host is ignored).
    public static let api = "https://api.example.com"

    /// The binary built with the tests (the test target depends on the `halley` product).
    ///
    /// Found next to the running test executable, whatever the scratch path (`.build`,
    /// `.build-cli`, ...): each directory from the test executable up is checked for an
    /// executable file named `halley`. `HALLEY_CLI` overrides the search.
    public static let binary: URL? = builtExecutable(named: "halley", override: "HALLEY_CLI")

    /// An executable product built with the tests, found as ``binary`` is; `override` names
    /// an environment variable that replaces the search.
    public static func builtExecutable(named name: String, override: String) -> URL? {
        let manager = FileManager.default
        func executable(in directory: URL) -> URL? {
            let candidate = directory.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                manager.isExecutableFile(atPath: candidate.path)
            else { return nil }
            return candidate
        }
        if let override = ProcessInfo.processInfo.environment[override], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        let cwd = URL(fileURLWithPath: manager.currentDirectoryPath, isDirectory: true)
        var starts: [URL] = []
        if let first = CommandLine.arguments.first {
            starts.append(URL(fileURLWithPath: first, relativeTo: cwd).standardizedFileURL.resolvingSymlinksInPath())
        }
        if let main = Bundle.main.executableURL { starts.append(main.resolvingSymlinksInPath()) }
        starts.append(Bundle.main.bundleURL.resolvingSymlinksInPath())
        // On macOS the tests run inside `xctest`: the `.xctest` bundle is among all bundles.
        starts += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        for start in starts {
            var directory = start.deletingLastPathComponent()
            while directory.path != "/" && !directory.path.isEmpty {
                if let found = executable(in: directory) { return found }
                directory.deleteLastPathComponent()
            }
        }
        for scratch in [".build-cli", ".build"] {
            let debug = repositoryRoot.appendingPathComponent(scratch).appendingPathComponent("debug")
            if let found = executable(in: debug) { return found }
        }
        return nil
    }

    /// How a run was seen to end: through Foundation, or by the kernel alone.
    private enum Ending: Sendable {
        case reported
        /// The child's exit status (or signal number) and whether a signal ended it.
        case unreported(status: Int32, signalled: Bool)
    }

    /// The child's end when it has ended, read with `WNOWAIT`: the zombie is left for
    /// Foundation to reap, so its bookkeeping never meets a child that vanished. `nil` while
    /// the child runs.
    private static func endedWithoutReport(_ pid: Int32) -> Ending? {
        #if canImport(Glibc)
            var info = siginfo_t()
            guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0,
                info._sifields._sigchld.si_pid == pid
            else { return nil }
            let code = info.si_code
            // CLD_EXITED is 1; CLD_KILLED (2) and CLD_DUMPED (3) mean a signal.
            return .unreported(status: info._sifields._sigchld.si_status, signalled: code == 2 || code == 3)
        #else
            return nil
        #endif
    }

    /// Runs `halley` with `arguments` and waits for it, at most `timeout`: a guard against a
    /// hang, not a speed check, so it is generous (a sanitizer build on a loaded 2-core machine
    /// took over 15 s for a run that takes 50 ms alone).
    ///
    /// stdout and stderr go to temporary files rather than pipes, so a chatty process can
    /// never block on a full pipe while the test waits for it to exit.
    ///
    /// `environment`, when given, replaces the test process's environment for the run.
    ///
    /// - Throws: ``CLIRunError`` when the binary is missing or the run times out (the process
    ///   is then killed, so a hang fails the test instead of hanging the suite).
    public static func run(
        _ arguments: [String], timeout: Duration = .seconds(60), environment: [String: String]? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> CLIResult {
        guard let binary else {
            let problem = "cannot find the built halley executable near \(CommandLine.arguments.first ?? "?")"
            Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
            throw CLIRunError(description: problem)
        }
        let manager = FileManager.default
        let scratch = manager.temporaryDirectory.appendingPathComponent("halley-cli-\(UUID().uuidString)")
        try manager.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? manager.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        guard manager.createFile(atPath: outURL.path, contents: nil),
            manager.createFile(atPath: errURL.path, contents: nil)
        else {
            throw CLIRunError(description: "cannot create output files in \(scratch.path)")
        }
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }

        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle
        let (exits, exited) = AsyncStream.makeStream(of: Void.self)
        process.terminationHandler = { _ in
            exited.yield()
            exited.finish()
        }
        try process.run()

        let ending = await withTaskGroup(of: Ending?.self) { group in
            group.addTask {
                for await _ in exits { return .reported }
                return Task.isCancelled ? nil : .reported
            }
            // Foundation on Linux can miss a child's exit under load: the termination handler
            // never runs and `isRunning` stays true while the child waits as a zombie (state
            // Z) for a reaper that never comes. So the kernel is asked too, without reaping.
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(200))
                    if !process.isRunning { return .reported }
                    if let ended = Self.endedWithoutReport(process.processIdentifier) { return ended }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let ending else {
            // What the kernel says of the child, before it is stopped.
            let stat = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)) ?? ""
            let state = stat.range(of: ") ").map { String(stat[$0.upperBound...].prefix(1)) } ?? "?"
            process.terminate()
            let partial = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
            let problem =
                "halley \(arguments.joined(separator: " ")) did not finish within \(timeout) "
                + "(process state \(state); stderr so far: \(partial.isEmpty ? "nothing" : partial))"
            Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
            throw CLIRunError(description: problem)
        }
        let status: Int32
        let crashed: Bool
        switch ending {
        case .reported:
            status = process.terminationStatus
            crashed = process.terminationReason == .uncaughtSignal
        case .unreported(let exitStatus, let signalled):
            // Foundation still counts the child as running; its own answers would trap.
            status = exitStatus
            crashed = signalled
        }
        let result = CLIResult(
            arguments: arguments, status: status, crashed: crashed,
            stdout: String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self),
            stderr: String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self))
        // Whatever the input, the tool must answer with a status and words, never a trap.
        #expect(!result.crashed, "halley crashed: \(result)", sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("Fatal error"), "halley trapped: \(result)", sourceLocation: sourceLocation)
        return result
    }

    /// Runs `halley get --fixtures Fixtures/api ARGS`.
    public static func fixtures(
        _ command: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation
    )
        async throws -> CLIResult
    {
        try await run([command, "--fixtures", fixtures] + arguments, sourceLocation: sourceLocation)
    }
}

/// Assertions shared by the CLI suites.
public enum CLIExpect {
    /// A failure: the given status, nothing on stdout, and the error as one `halley: ` line
    /// last on stderr (warnings and notes may precede it).
    public static func failure(
        _ result: CLIResult, status: Int32, containing fragments: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(result)", sourceLocation: sourceLocation)
        let last = result.stderrLines.last ?? ""
        #expect(last.hasPrefix("halley: "), "\(result)", sourceLocation: sourceLocation)
        #expect(
            result.stderrLines.allSatisfy {
                $0.hasPrefix("halley: ") || $0.hasPrefix("trace: ")
                    || $0.hasPrefix("waterfall: ") || $0.hasPrefix("  #")
            },
            "unexpected stderr lines: \(result)", sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(
                last.contains(fragment), "expected \"\(fragment)\" in the error line: \(result)",
                sourceLocation: sourceLocation)
        }
    }

    /// Whether every object in `value`, at any depth, lists its keys in sorted order.
    public static func keysAreSorted(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let object):
            let keys = object.keys
            return keys == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                && object.values.allSatisfy(keysAreSorted)
        case .array(let array):
            return array.allSatisfy(keysAreSorted)
        default:
            return true
        }
    }
}
