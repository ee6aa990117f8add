import Foundation

/// One consumer's events: latest-value delivery. A consumer that keeps up gets every event
/// in order; one that falls behind gets, for each kind, only the newest pending event (so at
/// most three wait: a slow screen gets the latest state, never an unbounded buffer).
///
/// Finishing (its task cancelled, or its iterator dropped) resumes a waiting consumer with
/// `nil` and drops what was pending.
final class EventMailbox: Sendable {
    private struct State {
        var pending: [ResourceEvent] = []
        var waiter: UnsafeContinuation<ResourceEvent?, Never>?
        var isFinished = false
    }

    private let state = LockedValue(State())

    /// Hands `event` to the waiting consumer, or keeps it in place of a pending one of its kind.
    func deliver(_ event: ResourceEvent) {
        let waiter = state.withLock { state -> UnsafeContinuation<ResourceEvent?, Never>? in
            guard !state.isFinished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending.removeAll { Self.sameKind($0, event) }
            state.pending.append(event)
            return nil
        }
        waiter?.resume(returning: event)
    }

    /// The next event; `nil` once finished or when the calling task is cancelled.
    func next() async -> ResourceEvent? {
        await withTaskCancellationHandler {
            // Unchecked: the waiter is taken out under the lock by whoever resumes it, so it is
            // resumed exactly once, and the checked kind costs an allocation per event.
            await withUnsafeContinuation { continuation in
                let ready = state.withLock { state -> ResourceEvent?? in
                    if state.isFinished || Task.isCancelled {
                        state.isFinished = true
                        return .some(nil)
                    }
                    if !state.pending.isEmpty { return .some(state.pending.removeFirst()) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the consumer's sequence.
    func finish() {
        let waiter = state.withLock { state -> UnsafeContinuation<ResourceEvent?, Never>? in
            state.isFinished = true
            state.pending = []
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    private static func sameKind(_ lhs: ResourceEvent, _ rhs: ResourceEvent) -> Bool {
        switch (lhs, rhs) {
        case (.updated, .updated), (.stale, .stale), (.deleted, .deleted): return true
        default: return false
        }
    }
}
