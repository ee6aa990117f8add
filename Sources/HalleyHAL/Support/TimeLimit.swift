/// Runs `body`, or throws `timeoutError()` once `limit` passes; either way the loser is
/// cancelled and awaited, so nothing keeps running after the call returns.
package func withTimeLimit<Value: Sendable>(
    _ limit: Duration, _ body: @escaping @Sendable () async throws -> Value,
    timeoutError: () -> any Error
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await sleepInSteps(until: .now + limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        guard let value = first else { throw timeoutError() }
        return value
    }
}

/// Sleeps until `deadline` in steps of at most ``sleepStep``.
///
/// A cancelled `Task.sleep` keeps its timer until the time it was asked to wake. Time limits
/// are long (60 s per attempt by default) and nearly always cancelled early, so one long sleep
/// per request held a timer for every request of the last minute; in steps, only what the
/// last step's requests left is held.
///
/// perf: memory bounded by a step's requests, not a minute's;
/// BENCHMARKS.md, "Why the hot paths look as they do".
package func sleepInSteps(until deadline: ContinuousClock.Instant, tolerance: Duration? = nil) async throws {
    while true {
        let now = ContinuousClock.now
        if now >= deadline { return }
        try await Task.sleep(until: min(deadline, now + sleepStep), tolerance: tolerance, clock: .continuous)
    }
}

/// The longest single sleep of ``sleepInSteps(until:tolerance:)``: four wake-ups a second for a
/// call that runs long, a quarter of a second's timers held for one that ends early.
let sleepStep: Duration = .milliseconds(250)
