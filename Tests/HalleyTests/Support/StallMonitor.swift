import Foundation
import Testing

@testable import Halley

/// How long the process could not run queued work while a body ran.
///
/// A time limit counts wall time, so an answer that is instant can still miss a two-second
/// limit when nothing in the process is scheduled for two seconds (seen on CI while the suites
/// start all at once). A heartbeat that sleeps in short steps wakes late by exactly that
/// long: its longest lateness tells a test whether a missed limit says anything about the code.
enum StallMonitor {
    /// Runs `body` with a heartbeat beside it; returns its value and the heartbeat's longest
    /// lateness.
    static func measure<Value: Sendable>(_ body: () async throws -> Value) async rethrows
        -> (value: Value, longestStall: Duration)
    {
        let longest = LockedValue(Duration.zero)
        let heartbeat = Task {
            let clock = ContinuousClock()
            let step = Duration.milliseconds(5)
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

    /// Runs `scenario` until a run meets `isCalm` or ran without a stall of `tolerance` or
    /// more, at most `runs` times, and returns that run for the test's full checks; when every
    /// run stalled, returns the last with `allRunsStalled` set.
    ///
    /// A run that misses `isCalm` during a stall says nothing about the code, so it is run
    /// again; a run that misses it without a stall is returned, and the test's checks fail on
    /// it. Code that is wrong every time therefore still fails the test.
    static func calmRun<Value: Sendable>(
        runs: Int = 5, tolerance: Duration, isCalm: (Value) -> Bool, scenario: () async throws -> Value
    ) async rethrows -> (value: Value, allRunsStalled: Bool) {
        var run = try await measure(scenario)
        var count = 1
        while !isCalm(run.value), run.longestStall >= tolerance {
            guard count < runs else { return (run.value, true) }
            run = try await measure(scenario)
            count += 1
        }
        return (run.value, false)
    }

    /// `body`'s value, run again (at most `runs` times) while it throws after a stall of
    /// `tolerance` or more; its error when it throws without one, or every run stalled.
    static func retryingStalls<Value: Sendable>(
        tolerance: Duration, runs: Int = 5, _ body: () async throws -> Value
    ) async throws -> Value {
        func attempt() async -> Result<Value, any Error> {
            do { return .success(try await body()) } catch { return .failure(error) }
        }
        let (result, _) = await calmRun(
            runs: runs, tolerance: tolerance, isCalm: { (try? $0.get()) != nil }, scenario: attempt)
        return try result.get()
    }
}
