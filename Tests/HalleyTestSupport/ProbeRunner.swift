import Foundation
import Halley
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What one run of `halley-transport-probe` reported, with the kernel's figures for it.
public struct ProbeResult: Sendable, CustomStringConvertible {
    /// The arguments, for messages.
    public let arguments: [String]
    /// The exit status, or `nil` when a signal ended the process.
    public let exitStatus: Int32?
    /// The signal that ended the process, if one did.
    public let signal: Int32?
    /// `ru_maxrss` from `wait4`, in bytes: an upper bound only, since with posix_spawn's
    /// vfork Linux counts the parent's peak (this test process's) into the child's.
    public let kernelMaxRSS: Int
    /// The probe's own peak resident set size (its `VmHWM`, fresh since it was executed),
    /// in bytes; falls back to ``kernelMaxRSS`` where the probe cannot read it.
    public var peakRSS: Int {
        let reported = report?["peakRSS"]?.intValue ?? 0
        return reported > 0 ? reported : kernelMaxRSS
    }
    /// The JSON object the probe printed; `nil` when it printed none.
    public let report: JSONValue?
    /// Wall time from spawn to exit.
    public let wall: Duration

    /// `response`, `error` or `rss-cap`.
    public var outcome: String? { report?["outcome"]?.stringValue }
    /// The type of the error the requester threw.
    public var errorType: String? { report?["errorType"]?.stringValue }
    /// How long the measured request took, as the probe timed it.
    public var elapsed: Duration {
        let seconds: Double = report?["elapsedSeconds"]?.doubleValue ?? 1e6
        let milliseconds: Double = (seconds * 1000).rounded(.up)
        return .milliseconds(Int(milliseconds.clamped))
    }
    /// Resident size just before the measured request.
    public var baselineRSS: Int { report?["baselineRSS"]?.intValue ?? 0 }
    /// How far the peak rose above that baseline.
    public var growth: Int { max(0, peakRSS - baselineRSS) }
    /// Whether the probe ran under a sanitizer (its memory figures are then inflated).
    public var sanitized: Bool { report?["sanitized"] == true }

    public var description: String {
        let ending: String = exitStatus.map { "status \($0)" } ?? "signal \(signal ?? -1)"
        let printed: String =
            report.map { String(decoding: $0.serialized(options: .sortedKeys), as: UTF8.self) } ?? "no report"
        let memory = "peak RSS \(peakRSS / 1_048_576) MiB (+\(growth / 1_048_576) MiB)"
        return
            "halley-transport-probe \(arguments.joined(separator: " ")) -> \(ending), \(memory), wall \(wall): \(printed)"
    }
}

extension Double {
    /// Within `Int`'s range, for turning a possibly infinite number of milliseconds into one.
    fileprivate var clamped: Int { self.isFinite ? Int(Swift.min(self, 1e12)) : Int(1e12) }
}

/// Runs `halley-transport-probe` with `posix_spawn` and reaps it with `wait4`; the probe
/// reports its own peak RSS from `/proc/self/status`.
public enum ProbeRunner {
    public static let binary = CLIRunner.builtExecutable(named: "halley-transport-probe", override: "HALLEY_PROBE")

    /// Runs the probe; it is killed after `timeout`.
    public static func run(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> ProbeResult {
        guard let binary else { throw CLIRunError(description: "cannot find the built halley-transport-probe") }
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("halley-probe-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: output) }

        let clock = ContinuousClock()
        let start = clock.now
        // posix_spawn blocks its thread: keep it off Swift's cooperative pool.
        let path = binary.path
        let outputPath = output.path
        let pid = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<pid_t, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try spawn(path, arguments: arguments, stdout: outputPath) })
            }
        }
        let reaped = LockedFlag()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.timeInterval) {
            reaped.ifNotSet { _ = kill(pid, SIGKILL) }
        }
        let (status, usage) = await withCheckedContinuation {
            (continuation: CheckedContinuation<(Int32, rusage), Never>) in
            // wait4 blocks, so it gets a thread of its own rather than one of the pool's.
            Thread.detachNewThread {
                // Wait for the exit without reaping, then reap under the flag's lock: the
                // timeout's kill either comes before (a zombie ignores it) or sees the flag.
                var info = siginfo_t()
                while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
                var status: Int32 = 0
                var usage = rusage()
                reaped.setting {
                    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
                }
                continuation.resume(returning: (status, usage))
            }
        }
        let wall = clock.now - start
        let text = (try? Data(contentsOf: output)) ?? Data()
        let line = text.split(separator: UInt8(ascii: "\n")).last.map { Data($0) } ?? Data()
        let signal = status & 0x7f
        return ProbeResult(
            arguments: arguments, exitStatus: signal == 0 ? (status >> 8) & 0xff : nil,
            signal: signal == 0 ? nil : signal, kernelMaxRSS: Int(usage.ru_maxrss) * maxRSSUnit,
            report: try? JSONValue(parsing: line), wall: wall)
    }

    /// `ru_maxrss` is in KiB on Linux, in bytes on Darwin.
    #if canImport(Darwin)
        private static let maxRSSUnit = 1
    #else
        private static let maxRSSUnit = 1024
    #endif

    private static func spawn(_ path: String, arguments: [String], stdout: String) throws -> pid_t {
        #if canImport(Glibc)
            var actions = posix_spawn_file_actions_t()
        #else
            var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
        }
        var pid: pid_t = 0
        // This process's environment: glibc declares `environ`, Darwin's headers do not (as in
        // halley-bench's `Spawn`).
        #if canImport(Glibc)
            let environment = environ
        #else
            let environment = _NSGetEnviron().pointee
        #endif
        let result = posix_spawn(&pid, path, &actions, nil, argv, environment)
        guard result == 0 else { throw CLIRunError(description: "posix_spawn \(path) failed: \(result)") }
        return pid
    }
}

/// A flag set once, from any thread; `ifNotSet` runs its body under the same lock, so a
/// child is never killed after it has been reaped (its pid may then belong to another).
private final class LockedFlag: Sendable {
    private let state = Locked(false)

    /// Runs `body`, then sets the flag, under the lock.
    func setting(_ body: () -> Void) {
        state.withLock { isSet in
            body()
            isSet = true
        }
    }

    func ifNotSet(_ body: () -> Void) {
        state.withLock { isSet in if !isSet { body() } }
    }
}

extension Duration {
    /// The duration in seconds, for Dispatch.
    public var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
