import Foundation
import Halley
import Testing

/// How late the process runs queued work while a body runs.
///
/// A time limit counts wall time, so an answer that is instant can still miss a two-second
/// limit when the process is busy with other suites: seen on CI while every suite starts at
/// once, under AddressSanitizer, where each of the dozen hops of an in-memory request (task,
/// semaphore, attempt, requester actor, answer) waited its turn in a long queue. A heartbeat
/// that sleeps in short steps wakes late by the length of that queue: its longest lateness
/// tells a test whether a missed limit says anything about the code.
public enum StallMonitor {
    /// How often the heartbeat wakes.
    public static let step = Duration.milliseconds(5)

    /// Runs `body` with a heartbeat beside it; returns its value and the heartbeat's longest
    /// lateness.
    public static func measure<Value: Sendable>(_ body: () async throws -> Value) async rethrows
        -> (value: Value, longestStall: Duration)
    {
        let longest = Locked(Duration.zero)
        let heartbeat = Task {
            let clock = ContinuousClock()
            while !Task.isCancelled {
                let before = clock.now
                do { try await Task.sleep(for: step) } catch { return }
                let late = clock.now - before - step
                longest.withLock { $0 = max($0, late) }
            }
        }
        defer { heartbeat.cancel() }
        let value = try await body()
        return (value, longest.get())
    }

    /// Waits until the heartbeat has woken on time (within `tolerance`) twenty times in a row,
    /// at most `patience`: timing-sensitive checks then start after the crowd of suites that
    /// begin together, not inside it.
    public static func waitForQuiet(tolerance: Duration, patience: Duration = .seconds(30)) async {
        let clock = ContinuousClock()
        let giveUp = clock.now + patience
        var onTime = 0
        while onTime < 20, clock.now < giveUp {
            let before = clock.now
            guard (try? await Task.sleep(for: step)) != nil else { return }
            onTime = clock.now - before - step < tolerance ? onTime + 1 : 0
        }
    }

    /// Runs `scenario` (once the process is quiet, unless `quietFirst` is `false`) until a run meets `isCalm` or ran without
    /// a stall of `tolerance` or more, at most `runs` times; returns that run for the test's
    /// full checks, or, when every run stalled, the last with `allRunsStalled` set.
    ///
    /// A run that misses `isCalm` during a stall says nothing about the code, so it is run
    /// again; a run that misses it without a stall is returned, and the test's checks fail on
    /// it. Code that is wrong every time therefore still fails the test.
    public static func calmRun<Value: Sendable>(
        runs: Int = 5, tolerance: Duration, quietFirst: Bool = true, isCalm: (Value) -> Bool,
        scenario: () async throws -> Value
    ) async rethrows -> (value: Value, allRunsStalled: Bool) {
        if quietFirst { await waitForQuiet(tolerance: tolerance) }
        var run = try await measure(scenario)
        var count = 1
        while !isCalm(run.value), run.longestStall >= tolerance {
            print("StallMonitor: run \(count) of \(runs) missed its check while work waited up to \(run.longestStall)")
            guard count < runs else { return (run.value, true) }
            await waitForQuiet(tolerance: tolerance)
            run = try await measure(scenario)
            count += 1
        }
        return (run.value, false)
    }

    /// `body`'s value, run again (at most `runs` times) while it throws after a stall of
    /// `tolerance` or more (after the process is quiet again); its error when it throws
    /// without one, or every run stalled. The first run starts at once: calls in a loop
    /// should not each wait for quiet.
    public static func retryingStalls<Value: Sendable>(
        tolerance: Duration, runs: Int = 5, _ body: () async throws -> Value
    ) async throws -> Value {
        func attempt() async -> Result<Value, any Error> {
            do { return .success(try await body()) } catch { return .failure(error) }
        }
        let (result, _) = await calmRun(
            runs: runs, tolerance: tolerance, quietFirst: false, isCalm: { (try? $0.get()) != nil }, scenario: attempt)
        return try result.get()
    }
}
