import Foundation

/// One call's table of documents by URL: each URL is requested once; later branches wait
/// for the first one's result instead of sending their own request.
actor FetchTable {
    /// Thrown by ``join(_:url:includePath:)`` to a branch that waited for a request whose
    /// owner was cancelled: the owner's cancellation says nothing about the document, so a
    /// waiter that is still running joins again (and sends the request itself).
    struct OwnerCancelled: Error {}

    private typealias Waiter = (id: Int, continuation: CheckedContinuation<HALResource, any Error>)

    private enum Entry {
        case inFlight([Waiter])
        case finished(Result<HALResource, any Error>)
    }

    private var entries: [String: Entry] = [:]
    private var nextWaiterID = 0
    private let maxRequests: Int
    /// Requests actually sent (distinct URLs claimed).
    private(set) var requestCount = 0

    init(maxRequests: Int) {
        self.maxRequests = maxRequests
    }

    /// Either the document of `key` (waiting for the request in flight, if any), or `nil`
    /// when the caller is the first to ask and must fetch it, then call ``finish(_:with:)``.
    ///
    /// A waiting branch that is cancelled stops waiting at once (`CancellationError`): a
    /// fail-fast call must not wait for a request that another branch sent.
    ///
    /// - Throws: The stored failure of an earlier request, or ``HalleyError/Code/limitExceeded``
    ///   when a new request would pass the per-call limit.
    func join(_ key: String, url: URL, includePath: String?) async throws -> HALResource? {
        switch entries[key] {
        case .finished(let result)?:
            return try result.get()
        case .inFlight?:
            let id = nextWaiterID
            nextWaiterID += 1
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    // Re-read: the entry may have finished while this task was suspended.
                    switch entries[key] {
                    case .inFlight(var waiters)? where !Task.isCancelled:
                        waiters.append((id, continuation))
                        entries[key] = .inFlight(waiters)
                    case .inFlight?:
                        continuation.resume(throwing: CancellationError())
                    case .finished(let result)?:
                        continuation.resume(with: result)
                    case nil:
                        continuation.resume(throwing: OwnerCancelled())
                    }
                }
            } onCancel: {
                Task { await self.cancelWaiter(id, of: key) }
            }
        case nil:
            guard requestCount < maxRequests else {
                throw HalleyError(
                    code: .limitExceeded, includePath: includePath, url: url,
                    message: "the call would send more than \(maxRequests) requests")
            }
            requestCount += 1
            entries[key] = .inFlight([])
            return nil
        }
    }

    /// Stores the owner's result and hands it to every waiting branch; when the owner was
    /// cancelled, the URL is free again and the waiters get ``OwnerCancelled``.
    func finish(_ key: String, with result: Result<HALResource, any Error>) {
        let waiters: [CheckedContinuation<HALResource, any Error>]
        if case .inFlight(let list)? = entries[key] { waiters = list.map(\.continuation) } else { waiters = [] }
        if case .failure(let error) = result, error is CancellationError {
            // A fail-fast sibling's failure cancels the owner's branch, not the branches that
            // wait for it elsewhere in the tree: storing the cancellation would fail them with
            // it, and a cancellation could then end the call instead of the failure.
            entries[key] = nil
            for waiter in waiters { waiter.resume(throwing: OwnerCancelled()) }
            return
        }
        entries[key] = .finished(result)
        for waiter in waiters { waiter.resume(with: result) }
    }

    private func cancelWaiter(_ id: Int, of key: String) {
        guard case .inFlight(var waiters)? = entries[key], let index = waiters.firstIndex(where: { $0.id == id }) else {
            return  // already answered
        }
        let waiter = waiters.remove(at: index)
        entries[key] = .inFlight(waiters)
        waiter.continuation.resume(throwing: CancellationError())
    }
}
