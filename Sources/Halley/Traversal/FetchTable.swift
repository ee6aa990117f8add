import Foundation
import HalleyHAL

/// One call's table of documents by URL: each URL is requested once; later branches wait
/// for the first one's result instead of sending their own request.
///
/// A lock rather than an actor: every resource of a traversal joins and finishes once, and
/// two actor hops per resource cost more than the table's work itself.
final class FetchTable: Sendable {
    /// Thrown by ``join(_:url:includePath:)`` to a branch that waited for a request whose
    /// owner was cancelled: the owner's cancellation says nothing about the document, so a
    /// waiter that is still running joins again (and sends the request itself).
    struct OwnerCancelled: Error {}

    private typealias Waiter = (id: Int, continuation: CheckedContinuation<HALResource, any Error>)

    private enum Entry {
        case inFlight([Waiter])
        /// Not `indirect`: a document is one reference (``HALResource`` keeps its parts in a
        /// box), so a table of 100,000 entries moves pointers as it grows without a box of its
        /// own per entry, which cost an allocation per fetched resource.
        case finished(Result<HALResource, any Error>)
    }

    /// Each URL's entry lives in `slots`, found through `entries` by its URL: the owner of a
    /// fetch gets its slot back from ``claim(_:url:includePath:)`` and finishes it there,
    /// without hashing the URL a second time.
    ///
    /// perf: one hash of the URL per fetched resource;
    /// BENCHMARKS.md, "Why the hot paths look as they do".
    private struct State {
        var entries: [String: Int] = [:]
        var slots: [Entry] = []
        var requestCount = 0
        var nextWaiter = 0

        /// The entry of `key`, if claimed.
        func entry(_ key: String) -> Entry? { entries[key].map { slots[$0] } }

        /// Adds `key`'s entry; the key must be new.
        mutating func add(_ key: String, _ entry: Entry) {
            entries[key] = slots.count
            slots.append(entry)
        }
    }

    private let state = LockedValue(State())
    /// The most distinct URLs one call may request.
    let maxRequests: Int

    init(maxRequests: Int) {
        self.maxRequests = maxRequests
    }

    /// Requests actually sent (distinct URLs claimed).
    var requestCount: Int { state.withLock { $0.requestCount } }

    /// How many more distinct URLs the call may request.
    var remainingRequests: Int { state.withLock { maxRequests - $0.requestCount } }

    /// Makes room for `count` more URLs, so a fan-out of that many does not grow the table
    /// step by step, rehashing every URL it holds each time.
    func reserve(_ count: Int) {
        state.withLock { state in
            state.entries.reserveCapacity(state.entries.count + count)
            state.slots.reserveCapacity(state.slots.count + count)
        }
    }

    /// Whether `key` is already claimed (in flight or finished): joining it sends nothing.
    func isClaimed(_ key: String) -> Bool { state.withLock { $0.entries[key] != nil } }

    /// What ``claim(_:url:includePath:)`` found for a key.
    enum Claim {
        /// The key's document, already fetched.
        case finished(HALResource)
        /// The caller is the first to ask: it must fetch the document, then call
        /// ``finish(_:slot:with:)`` with this slot.
        case owned(slot: Int)
        /// Another branch is fetching it: ``join(_:url:includePath:)`` waits for it.
        case inFlight
    }

    /// ``join(_:url:includePath:)`` without waiting: nearly every key of a traversal is new,
    /// and deciding that needs no suspension point (each one costs an async frame per
    /// resource).
    ///
    /// - Throws: The stored failure of an earlier request, or
    ///   ``HalleyError/Code/limitExceeded`` when a new request would pass the per-call limit.
    func claim(_ key: String, url: LazyURL, includePath: String?) throws -> Claim {
        let maxRequests = self.maxRequests
        let step = state.withLock { state -> Step in
            // Nearly every key is new: claim it with one lookup, and put back what was there.
            if state.requestCount < maxRequests {
                let slot = state.slots.count
                guard let existing = state.entries.updateValue(slot, forKey: key) else {
                    state.slots.append(.inFlight([]))
                    state.requestCount += 1
                    return .fetch(slot: slot)
                }
                state.entries[key] = existing
                if case .finished(let result) = state.slots[existing] { return .finished(result) }
                return .wait
            }
            switch state.entry(key) {
            case .finished(let result)?: return .finished(result)
            case .inFlight?: return .wait
            case nil: return .overLimit
            }
        }
        switch step {
        case .finished(let result):
            return .finished(try result.get())
        case .fetch(let slot):
            return .owned(slot: slot)
        case .wait:
            return .inFlight
        case .overLimit:
            throw HalleyError(
                code: .limitExceeded, includePath: includePath, url: url.url,
                message: "the call would send more than \(maxRequests) requests")
        }
    }

    private enum Step {
        case finished(Result<HALResource, any Error>)
        case wait
        case fetch(slot: Int)
        case overLimit
    }

    /// Either the document of `key` (waiting for the request in flight, if any), or `nil`
    /// when the caller is the first to ask and must fetch it, then call ``finish(_:with:)``.
    /// Rare enough to find the key's slot again there.
    ///
    /// A waiting branch that is cancelled stops waiting at once (`CancellationError`): a
    /// fail-fast call must not wait for a request that another branch sent.
    ///
    /// - Throws: The stored failure of an earlier request, ``OwnerCancelled``, or
    ///   ``HalleyError/Code/limitExceeded`` when a new request would pass the per-call limit.
    func join(_ key: String, url: LazyURL, includePath: String?) async throws -> HALResource? {
        switch try claim(key, url: url, includePath: includePath) {
        case .finished(let document):
            return document
        case .owned:
            return nil
        case .inFlight:
            let id = state.withLock { state -> Int in
                state.nextWaiter += 1
                return state.nextWaiter
            }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    // Re-read: the entry may have finished since the first look.
                    let ready = state.withLock { state -> Result<HALResource, any Error>? in
                        guard let slot = state.entries[key] else { return .failure(OwnerCancelled()) }
                        switch state.slots[slot] {
                        case .inFlight(var waiters):
                            if Task.isCancelled { return .failure(CancellationError()) }
                            // Emptied first, so that the append does not copy the waiters.
                            state.slots[slot] = .inFlight([])
                            waiters.append((id, continuation))
                            state.slots[slot] = .inFlight(waiters)
                            return nil
                        case .finished(let result):
                            return result
                        }
                    }
                    if let ready { continuation.resume(with: ready) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<HALResource, any Error>? in
                    guard let slot = state.entries[key], case .inFlight(var waiters) = state.slots[slot],
                        let index = waiters.firstIndex(where: { $0.id == id })
                    else { return nil }  // already answered
                    let waiter = waiters.remove(at: index)
                    state.slots[slot] = .inFlight(waiters)
                    return waiter.continuation
                }
                waiter?.resume(throwing: CancellationError())
            }
        }
    }

    /// Stores the owner's result and hands it to every waiting branch; when the owner was
    /// cancelled, the URL is free again and the waiters get ``OwnerCancelled``.
    /// ``join(_:url:includePath:)`` then ``finish(_:with:)`` for each key of `keys` whose
    /// document `documents` holds (answered by the resource store, with no request), under
    /// one lock: each new key is counted against ``maxRequests`` as a fetch would be. Per
    /// index: the document and whether this call claimed it, or a key's earlier answer; `nil`
    /// where the usual way must decide (no document, a fetch in flight, a failure, the limit).
    func adopt(_ keys: [String?], documents: [HALResource?]) -> [(document: HALResource, isNew: Bool)?] {
        let maxRequests = self.maxRequests
        return state.withLock { state in
            zip(keys, documents).map { key, document -> (document: HALResource, isNew: Bool)? in
                guard let key, let document else { return nil }
                switch state.entry(key) {
                case .finished(.success(let earlier))?:
                    return (earlier, false)
                case nil where state.requestCount < maxRequests:
                    state.add(key, .finished(.success(document)))
                    state.requestCount += 1
                    return (document, true)
                default:
                    return nil
                }
            }
        }
    }

    func finish(_ key: String, with result: Result<HALResource, any Error>) {
        let slot = state.withLock { state -> Int in
            if let slot = state.entries[key] { return slot }
            state.add(key, .inFlight([]))
            return state.slots.count - 1
        }
        finish(key, slot: slot, with: result)
    }

    /// ``finish(_:with:)`` for the owner of `slot`, as ``claim(_:url:includePath:)`` gave it:
    /// only the owner finishes or frees a slot, so it is still `key`'s.
    func finish(_ key: String, slot: Int, with result: Result<HALResource, any Error>) {
        // A fail-fast sibling's failure cancels the owner's branch, not the branches that wait
        // for it elsewhere in the tree: storing the cancellation would fail them with it, and a
        // cancellation could then end the call instead of the failure.
        var ownerCancelled = false
        if case .failure(let error) = result, error is CancellationError { ownerCancelled = true }
        let waiters = state.withLock { state -> [Waiter] in
            let previous = state.slots[slot]
            if ownerCancelled {
                // The URL is free again: a later claim takes a new slot, and this one stays empty.
                state.entries[key] = nil
                state.slots[slot] = .inFlight([])
            } else {
                state.slots[slot] = .finished(result)
            }
            if case .inFlight(let waiters) = previous { return waiters }
            return []
        }
        for waiter in waiters {
            if ownerCancelled {
                waiter.continuation.resume(throwing: OwnerCancelled())
            } else {
                waiter.continuation.resume(with: result)
            }
        }
    }
}
