/// Bounds how many requests of one call are in flight, first come first served.
///
/// Waiters that are cancelled leave the queue at once and throw `CancellationError`. A lock
/// rather than an actor: a permit that is free is taken without a hop to another executor,
/// which is every request of a call that stays under its limit.
package final class AsyncSemaphore: Sendable {
    /// Unsafe rather than checked: a checked continuation allocates a canary per wait, and
    /// under a saturated limit every request waits here once. Each continuation is resumed
    /// exactly once: by whoever takes it out of `waiters` under the lock (a release or the
    /// cancellation handler), or at once when it never enters the queue.
    private typealias Waiter = (id: Int, continuation: UnsafeContinuation<Void, any Error>)

    private struct State {
        var available: Int
        /// Waiters in arrival order from `head`; served ones are skipped, not removed, so a
        /// release is O(1) however long the queue (a 1,000-wide fan-out queues 1,000).
        var waiters: [Waiter?] = []
        var head = 0
        var nextID = 0
        /// Waiters whose task was cancelled before they joined the queue.
        var cancelledEarly: Set<Int> = []

        /// Drops the served prefix once it is most of the storage.
        mutating func compact() {
            if head == waiters.count {
                // Nearly every release finds no queue at all: nothing to empty (emptying an empty
                // array still goes through the array's copy-and-grow path).
                guard head > 0 else { return }
                waiters.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 64 && head * 2 > waiters.count {
                waiters.removeFirst(head)
                head = 0
            }
        }
    }

    private let state: LockedValue<State>

    package init(permits: Int) {
        state = LockedValue(State(available: max(1, permits)))
    }

    /// Takes a free permit without a suspension point (and without the async frame of
    /// ``acquire()``): `false` when none is free, and the caller then waits in ``acquire()``.
    /// Every request of a call that stays under its limit goes this way.
    ///
    /// - Throws: `CancellationError` when the task is cancelled, as ``acquire()`` does.
    package func tryAcquire() throws -> Bool {
        try Task.checkCancellation()
        return state.withLock { state in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
    }

    /// Waits for a permit; a saturated limit waits here once a request.
    ///
    /// perf: inlined, no executor switch of its own per request;
    /// BENCHMARKS.md, "Why the hot paths look as they do".
    @inline(__always)
    package func acquire() async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> Int? in
            if state.available > 0 {
                state.available -= 1
                return nil
            }
            defer { state.nextID += 1 }
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    // Checked for emptiness first: removing from an empty set still hashes.
                    if !state.cancelledEarly.isEmpty, state.cancelledEarly.remove(id) != nil { return true }
                    state.waiters.append((id, continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            cancelWaiter(id)
        }
        // A cancellation that raced with being served left its mark unread. Only a cancelled
        // task's handler leaves one, and a task stays cancelled: an uncancelled waiter, nearly
        // every one, skips the third lock.
        if Task.isCancelled {
            state.withLock { state in
                if !state.cancelledEarly.isEmpty { state.cancelledEarly.remove(id) }
            }
        }
    }

    package func release() {
        let next = state.withLock { state -> Waiter? in
            defer { state.compact() }
            while state.head < state.waiters.count {
                let next = state.waiters[state.head]
                state.waiters[state.head] = nil
                state.head += 1
                // Hand the permit straight to the next waiter.
                if let next { return next }
            }
            state.available += 1
            return nil
        }
        next?.continuation.resume()
    }

    private func cancelWaiter(_ id: Int) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters[state.head...].firstIndex(where: { $0?.id == id }),
                let waiter = state.waiters[index]
            else {
                // Not queued yet (or already served): the queueing step sees the mark.
                state.cancelledEarly.insert(id)
                return nil
            }
            state.waiters[index] = nil
            return waiter
        }
        waiter?.continuation.resume(throwing: CancellationError())
    }
}
