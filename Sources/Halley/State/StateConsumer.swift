import Foundation
import HalleyHAL

/// What the store hands the changes of a URL's states to, under its lock and in its order: a
/// handle's ``EventMailbox``, or a list's ``ListMailbox`` (one consumer for many URLs).
protocol StateConsumer: AnyObject, Sendable {
    /// One change of `key`'s state (whose response varied on `varyNames`).
    func deliver(_ event: ResourceEvent, key: StateKey, varyNames: [String])
    /// The handle through which a stale state of `url` is asked for again; `nil` when none.
    func refresher(for url: String) -> ResourceHandle?
}

/// The changes of many URLs' states for one consumer (a ``ResourceListModel``), latest value
/// per URL: a consumer that falls behind gets each URL's newest event once, in the order the
/// URLs first changed, never an unbounded buffer. It follows only the states a request of
/// `scope` selects.
final class ListMailbox: StateConsumer {
    typealias Batch = [(url: String, event: ResourceEvent)]

    private struct State {
        var pending: [String: ResourceEvent] = [:]
        var order: [String] = []
        var waiter: UnsafeContinuation<Batch?, Never>?
        var isFinished = false
        /// Where it is registered, to unregister when it finishes (the store holds it until then).
        var store: ResourceStore?
        var urls: Set<String> = []
    }

    private let state = LockedValue(State())
    let scope: StateScope
    /// Makes the handle a stale URL is refreshed through.
    private let makeHandle: @Sendable (String) -> ResourceHandle?

    init(scope: StateScope, handle: @escaping @Sendable (String) -> ResourceHandle?) {
        self.scope = scope
        makeHandle = handle
    }

    func refresher(for url: String) -> ResourceHandle? { makeHandle(url) }

    /// Registers it in `store` for `urls` too (nothing once finished).
    func register(in store: ResourceStore, for urls: [String]) {
        let new = state.withLock { state -> [String] in
            guard !state.isFinished else { return [] }
            state.store = store
            return urls.filter { state.urls.insert($0).inserted }
        }
        store.register(self, for: new)
    }

    func deliver(_ event: ResourceEvent, key: StateKey, varyNames: [String]) {
        guard key.scope == scope.credentials, scope.headers.variant(for: varyNames) == key.variant else { return }
        let waiter = state.withLock { state -> UnsafeContinuation<Batch?, Never>? in
            guard !state.isFinished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            if state.pending.updateValue(event, forKey: key.url) == nil { state.order.append(key.url) }
            return nil
        }
        waiter?.resume(returning: [(key.url, event)])
    }

    /// Every URL's pending event, or the next one when none waits; `nil` once finished or when
    /// the calling task is cancelled.
    func next() async -> Batch? {
        await withTaskCancellationHandler {
            // Unchecked: the waiter is taken out under the lock by whoever resumes it.
            await withUnsafeContinuation { continuation in
                let ready = state.withLock { state -> Batch?? in
                    if state.isFinished || Task.isCancelled {
                        state.isFinished = true
                        return .some(nil)
                    }
                    if !state.order.isEmpty {
                        let batch = state.order.compactMap { url in state.pending[url].map { (url, $0) } }
                        state.order = []
                        state.pending = [:]
                        return .some(batch)
                    }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    func finish() {
        let (waiter, store, urls) = state.withLock {
            state -> (UnsafeContinuation<Batch?, Never>?, ResourceStore?, Set<String>) in
            state.isFinished = true
            state.pending = [:]
            state.order = []
            defer {
                state.waiter = nil
                state.store = nil
                state.urls = []
            }
            return (state.waiter, state.store, state.urls)
        }
        for url in urls { store?.unsubscribe(self, from: url) }
        waiter?.resume(returning: nil)
    }
}
