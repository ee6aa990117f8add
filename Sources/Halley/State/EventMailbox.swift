import Foundation
import HalleyHAL

/// One consumer's events: latest-value delivery. A consumer that keeps up gets every event
/// in order; one that falls behind gets, for each kind, only the newest pending event (so at
/// most three wait: a slow screen gets the latest state, never an unbounded buffer).
///
/// A mailbox is registered for a URL when its subscription is made, before anyone knows the
/// credentials and headers its handle's requests will carry: until ``resolve(_:)`` names them,
/// it keeps the events of every state of the URL, each tagged with its key; from then on only
/// those of the states its requests select.
///
/// Finishing (its task cancelled, or its iterator dropped) resumes a waiting consumer with
/// `nil` and drops what was pending.
final class EventMailbox: StateConsumer {
    private struct Entry {
        let key: StateKey
        let varyNames: [String]
        let event: ResourceEvent
    }

    private struct State {
        var pending: [Entry] = []
        var waiter: UnsafeContinuation<ResourceEvent?, Never>?
        var isFinished = false
        /// Whose states it follows, once known.
        var scope: StateScope?
    }

    private let state = LockedValue(State())
    /// The handle whose events these are: how ``ResourceStore/refreshStale()`` asks again.
    let handle: ResourceHandle?

    init(handle: ResourceHandle? = nil) {
        self.handle = handle
    }

    func refresher(for url: String) -> ResourceHandle? { handle }

    /// Whether a request of `scope` selects the state of `key`, whose response varied on
    /// `varyNames`.
    private static func selects(_ scope: StateScope, _ key: StateKey, varyNames: [String]) -> Bool {
        key.scope == scope.credentials && scope.headers.variant(for: varyNames) == key.variant
    }

    /// Hands `event` (of `key`'s state) to the waiting consumer, or keeps it in place of a
    /// pending one of its kind. Called under the store's lock, so events arrive in the store's
    /// order.
    func deliver(_ event: ResourceEvent, key: StateKey, varyNames: [String]) {
        let waiter = state.withLock { state -> UnsafeContinuation<ResourceEvent?, Never>? in
            guard !state.isFinished else { return nil }
            if let scope = state.scope {
                guard Self.selects(scope, key, varyNames: varyNames) else { return nil }
                if let waiter = state.waiter {
                    state.waiter = nil
                    return waiter
                }
                state.pending.removeAll { Self.sameKind($0.event, event) }
            } else {
                state.pending.removeAll { $0.key == key && Self.sameKind($0.event, event) }
            }
            state.pending.append(Entry(key: key, varyNames: varyNames, event: event))
            return nil
        }
        waiter?.resume(returning: event)
    }

    /// Names whose states the consumer follows: what was kept for other states is dropped.
    func resolve(_ scope: StateScope) {
        state.withLock { state in
            guard state.scope == nil else { return }
            state.scope = scope
            var kept: [Entry] = []
            for entry in state.pending where Self.selects(scope, entry.key, varyNames: entry.varyNames) {
                kept.removeAll { Self.sameKind($0.event, entry.event) }
                kept.append(entry)
            }
            state.pending = kept
        }
    }

    /// The next event; `nil` once finished or when the calling task is cancelled. Called only
    /// after ``resolve(_:)``.
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
                    if !state.pending.isEmpty { return .some(state.pending.removeFirst().event) }
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
