import Foundation
import HalleyHAL

/// One request for a state that every concurrent `get()` of it waits on. Each waiter ends on
/// its own: with the answer, or at once with `CancellationError` when its task is cancelled.
/// The request goes on while any waiter needs it, and is cancelled when none does.
final class SharedFetch: Sendable {
    private struct State {
        /// Waiters joined and not yet ended by their own cancellation.
        var joined = 0
        var nextID = 0
        var waiters: [Int: UnsafeContinuation<ResourceState, any Error>] = [:]
        /// Waiters cancelled before they started waiting.
        var cancelled: Set<Int> = []
        var result: Result<ResourceState, any Error>?
        /// Every waiter left before the answer: no one may join any more.
        var isAbandoned = false
        var task: Task<Void, Never>?
    }

    private let state = LockedValue(State())

    /// Starts `fetch`; `finished` runs once it ends (to forget this fetch), before the waiters
    /// resume.
    init(
        _ fetch: @escaping @Sendable () async throws -> ResourceState,
        finished: @escaping @Sendable (SharedFetch) -> Void
    ) {
        let task = Task { [state] in
            let result: Result<ResourceState, any Error>
            do { result = .success(try await fetch()) } catch { result = .failure(error) }
            finished(self)
            let waiters = state.withLock { state in
                state.result = result
                defer { state.waiters = [:] }
                return state.waiters.values
            }
            for waiter in waiters { waiter.resume(with: result) }
        }
        state.withLock { $0.task = task }
    }

    /// A place among the waiters; `nil` when everyone has left (start another fetch).
    func join() -> Int? {
        state.withLock { state in
            guard !state.isAbandoned else { return nil }
            state.joined += 1
            state.nextID += 1
            return state.nextID
        }
    }

    /// The answer, for the waiter `id` from ``join()``.
    ///
    /// - Throws: `CancellationError` as soon as the calling task is cancelled; the fetch's
    ///   error otherwise.
    func wait(_ id: Int) async throws -> ResourceState {
        try await withTaskCancellationHandler {
            // Unchecked: each continuation is taken out under the lock by whoever resumes it.
            try await withUnsafeThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<ResourceState, any Error>? in
                    if let result = state.result { return result }
                    if state.cancelled.contains(id) { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            leave(id)
        }
    }

    /// Whether every waiter left before the answer, and the request was cancelled.
    var isAbandoned: Bool { state.withLock { $0.isAbandoned } }

    /// Ends waiter `id` with `CancellationError`; the last one to leave cancels the request.
    private func leave(_ id: Int) {
        let (waiter, task) = state.withLock {
            state -> (UnsafeContinuation<ResourceState, any Error>?, Task<Void, Never>?) in
            guard state.result == nil else { return (nil, nil) }
            let waiter = state.waiters.removeValue(forKey: id)
            if waiter == nil { state.cancelled.insert(id) }
            state.joined -= 1
            guard state.joined == 0 else { return (waiter, nil) }
            state.isAbandoned = true
            return (waiter, state.task)
        }
        waiter?.resume(throwing: CancellationError())
        task?.cancel()
    }
}
