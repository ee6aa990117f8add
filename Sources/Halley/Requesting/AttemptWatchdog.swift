import Foundation
import HalleyHAL
import HalleyTransport

/// Holds every attempt of one call to the per-attempt time limit with a single timer.
///
/// Racing each request against its own sleeping task costs a task group, a second child
/// task and a timer per request. All attempts of a call share one limit, so their deadlines
/// arrive in the order the attempts started: one sleeper task waits for the oldest pending
/// deadline, cancels every attempt that is past its own, and sleeps again; an attempt that
/// finishes in time only marks its slot done.
///
/// The sleeper lives while the call does: ``stop()`` (at the end of the call) cancels it,
/// and it ends by itself when it wakes with nothing pending.
///
/// perf: one timer per call instead of a race per request;
/// BENCHMARKS.md, "Why the hot paths look as they do".
final class AttemptWatchdog: Sendable {
    typealias Attempt = Task<ResourceResponse, any Error>

    private enum Slot {
        case pending(Attempt, deadline: ContinuousClock.Instant)
        case done
    }

    private struct State {
        /// Slots by attempt number minus `base`, oldest first; `head` is the first slot
        /// the sleeper has not passed yet.
        var slots: [Slot] = []
        var base = 0
        var head = 0
        /// Attempts the sleeper cancelled for their time, until their owners look.
        var expired: Set<Int> = []
        /// Which sleeper is current: a stopped sleeper that wakes late must not act.
        var generation = 0
        var sleeping = false
        var sleeper: Task<Void, Never>?
    }

    let limit: Duration
    private let state = LockedValue(State())

    init(limit: Duration) {
        self.limit = limit
    }

    /// Runs `body` in its own task, cancelled once `limit` passes (then `timeoutError()` is
    /// thrown) or when the calling task is cancelled. Like a task group, it returns only
    /// after `body` has: nothing of the attempt keeps running.
    func run(
        _ body: @escaping @Sendable () async throws -> ResourceResponse, timeoutError: () -> any Error
    ) async throws -> ResourceResponse {
        let attempt = Attempt { try await body() }
        let number = register(attempt)
        let result = await withTaskCancellationHandler {
            await attempt.result
        } onCancel: {
            attempt.cancel()
        }
        // An answer that made it counts even if the limit passed on its way out.
        if case .success = result {
            finish(number)
            return try result.get()
        }
        if finish(number) { throw timeoutError() }
        return try result.get()
    }

    /// Cancels the sleeper: the call is over, so no attempt of it is pending.
    func stop() {
        let sleeper = state.withLock { state -> Task<Void, Never>? in
            state.generation += 1
            state.sleeping = false
            defer { state.sleeper = nil }
            return state.sleeper
        }
        sleeper?.cancel()
    }

    // MARK: Slots

    private func register(_ attempt: Attempt) -> Int {
        let limit = self.limit
        let (number, start) = state.withLock { state -> (Int, (generation: Int, first: ContinuousClock.Instant)?) in
            // Read inside the lock: deadlines then never go backwards along the slots.
            let deadline = ContinuousClock.now + limit
            state.slots.append(.pending(attempt, deadline: deadline))
            let number = state.base + state.slots.count - 1
            guard !state.sleeping else { return (number, nil) }
            state.sleeping = true
            state.generation += 1
            return (number, (state.generation, deadline))
        }
        if let start {
            let sleeper = Task { [state] in
                await Self.watch(state, generation: start.generation, firstDeadline: start.first)
            }
            state.withLock { state in
                if state.generation == start.generation { state.sleeper = sleeper } else { sleeper.cancel() }
            }
        }
        return number
    }

    /// Marks attempt `number` done; `true` when the sleeper had cancelled it for its time.
    @discardableResult
    private func finish(_ number: Int) -> Bool {
        state.withLock { state in
            if state.expired.remove(number) != nil { return true }
            let index = number - state.base
            if index >= 0, index < state.slots.count { state.slots[index] = .done }
            Self.passDone(&state)
            return false
        }
    }

    /// Moves `head` past finished slots and drops them once they are half the array, so the
    /// slots hold about what is in flight, not every attempt of the call (amortised O(1)).
    private static func passDone(_ state: inout State) {
        while state.head < state.slots.count, case .done = state.slots[state.head] { state.head += 1 }
        if state.head >= 32, state.head * 2 >= state.slots.count {
            state.slots.removeFirst(state.head)
            state.base += state.head
            state.head = 0
        }
    }

    /// The sleeper: waits for the oldest pending deadline, cancels what is overdue, repeats;
    /// returns when nothing is pending or a newer sleeper replaced it.
    private static func watch(_ state: LockedValue<State>, generation: Int, firstDeadline: ContinuousClock.Instant)
        async
    {
        var wake = firstDeadline
        while true {
            // Sleeping past a deadline by a few milliseconds is fine; waking early is harmless.
            do {
                // In steps: a call stops its watchdog long before the limit (see sleepInSteps).
                try await sleepInSteps(until: wake, tolerance: .milliseconds(5))
            } catch {
                return
            }
            let (overdue, next) = state.withLock { state -> ([Attempt], ContinuousClock.Instant?) in
                guard state.generation == generation else { return ([], nil) }
                return Self.expire(&state)
            }
            for attempt in overdue { attempt.cancel() }
            guard let next else { return }
            wake = next
        }
    }

    /// Passes every done or overdue slot; returns the overdue attempts and the next deadline,
    /// or `nil` (and the sleeper's end) when nothing is pending.
    private static func expire(_ state: inout State) -> ([Attempt], ContinuousClock.Instant?) {
        let now = ContinuousClock.now
        var overdue: [Attempt] = []
        var next: ContinuousClock.Instant?
        while state.head < state.slots.count {
            if case .pending(let attempt, let deadline) = state.slots[state.head] {
                if deadline > now {
                    next = deadline
                    break
                }
                overdue.append(attempt)
                state.expired.insert(state.base + state.head)
                state.slots[state.head] = .done
            }
            state.head += 1
        }
        passDone(&state)
        if next == nil {
            state.sleeping = false
            state.sleeper = nil
        }
        return (overdue, next)
    }
}
