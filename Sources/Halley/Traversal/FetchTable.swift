import Foundation

/// One call's table of documents by URL: each URL is requested once; later branches wait
/// for the first one's result instead of sending their own request.
actor FetchTable {
    private enum Entry {
        case inFlight([CheckedContinuation<HALResource, any Error>])
        case finished(Result<HALResource, any Error>)
    }

    private var entries: [String: Entry] = [:]
    private let maxRequests: Int
    /// Requests actually sent (distinct URLs claimed).
    private(set) var requestCount = 0

    init(maxRequests: Int) {
        self.maxRequests = maxRequests
    }

    /// Either the document of `key` (waiting for the request in flight, if any), or `nil`
    /// when the caller is the first to ask and must fetch it, then call ``finish(_:with:)``.
    ///
    /// - Throws: The stored failure of an earlier request, or ``HalleyError/Code/limitExceeded``
    ///   when a new request would pass the per-call limit.
    func join(_ key: String, url: URL, includePath: String?) async throws -> HALResource? {
        switch entries[key] {
        case .finished(let result)?:
            return try result.get()
        case .inFlight?:
            return try await withCheckedThrowingContinuation { continuation in
                // Re-read: the entry may have finished while this task was suspended.
                switch entries[key] {
                case .inFlight(var waiters)?:
                    waiters.append(continuation)
                    entries[key] = .inFlight(waiters)
                case .finished(let result)?:
                    continuation.resume(with: result)
                case nil:
                    continuation.resume(throwing: CancellationError())
                }
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

    /// Stores the owner's result and hands it to every waiting branch.
    func finish(_ key: String, with result: Result<HALResource, any Error>) {
        if case .inFlight(let waiters)? = entries[key] {
            for waiter in waiters { waiter.resume(with: result) }
        }
        entries[key] = .finished(result)
    }
}
