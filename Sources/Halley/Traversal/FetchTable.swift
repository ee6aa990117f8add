import Foundation

/// One call's table of documents by URL: each URL is requested once; later branches wait
/// for the first one's result instead of sending their own request.
///
/// A lock rather than an actor: every resource of a traversal joins and finishes once, and
/// two actor hops per resource cost more than the table's work itself.
final class FetchTable: Sendable {
    private enum Entry {
        case inFlight([CheckedContinuation<HALResource, any Error>])
        case finished(Result<HALResource, any Error>)
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var requestCount = 0
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

    /// Whether `key` is already claimed (in flight or finished): joining it sends nothing.
    func isClaimed(_ key: String) -> Bool { state.withLock { $0.entries[key] != nil } }

    private enum Join {
        case finished(Result<HALResource, any Error>)
        case wait
        case fetch
        case overLimit
    }

    /// Either the document of `key` (waiting for the request in flight, if any), or `nil`
    /// when the caller is the first to ask and must fetch it, then call ``finish(_:with:)``.
    ///
    /// - Throws: The stored failure of an earlier request, or ``HalleyError/Code/limitExceeded``
    ///   when a new request would pass the per-call limit.
    func join(_ key: String, url: URL, includePath: String?) async throws -> HALResource? {
        let maxRequests = self.maxRequests
        let step = state.withLock { state -> Join in
            switch state.entries[key] {
            case .finished(let result)?: return .finished(result)
            case .inFlight?: return .wait
            case nil:
                guard state.requestCount < maxRequests else { return .overLimit }
                state.requestCount += 1
                state.entries[key] = .inFlight([])
                return .fetch
            }
        }
        switch step {
        case .finished(let result):
            return try result.get()
        case .fetch:
            return nil
        case .overLimit:
            throw HalleyError(
                code: .limitExceeded, includePath: includePath, url: url,
                message: "the call would send more than \(maxRequests) requests")
        case .wait:
            return try await withCheckedThrowingContinuation { continuation in
                // Re-read: the entry may have finished since the first look.
                let ready = state.withLock { state -> Result<HALResource, any Error>? in
                    switch state.entries[key] {
                    case .inFlight(var waiters)?:
                        state.entries[key] = nil
                        waiters.append(continuation)
                        state.entries[key] = .inFlight(waiters)
                        return nil
                    case .finished(let result)?:
                        return result
                    case nil:
                        return .failure(CancellationError())
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }

    /// Stores the owner's result and hands it to every waiting branch.
    func finish(_ key: String, with result: Result<HALResource, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<HALResource, any Error>] in
            defer { state.entries[key] = .finished(result) }
            if case .inFlight(let waiters)? = state.entries[key] { return waiters }
            return []
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
