/// Bounds how many requests of one call are in flight, first come first served.
///
/// Waiters that are cancelled leave the queue at once and throw `CancellationError`.
actor AsyncSemaphore {
    private var available: Int
    /// Waiters in arrival order from `head`; served ones are skipped, not removed, so a
    /// release is O(1) however long the queue (a 1,000-wide fan-out queues 1,000).
    private var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)?] = []
    private var head = 0
    private var nextID = 0

    init(permits: Int) {
        available = max(1, permits)
    }

    func acquire() async throws {
        try Task.checkCancellation()
        if available > 0 {
            available -= 1
            return
        }
        let id = nextID
        nextID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    func release() {
        while head < waiters.count {
            let next = waiters[head]
            waiters[head] = nil
            head += 1
            if let next {
                // Hand the permit straight to the next waiter.
                next.continuation.resume()
                compact()
                return
            }
        }
        available += 1
        compact()
    }

    private func cancelWaiter(_ id: Int) {
        guard let index = waiters[head...].firstIndex(where: { $0?.id == id }), let waiter = waiters[index] else {
            return
        }
        waiters[index] = nil
        waiter.continuation.resume(throwing: CancellationError())
    }

    /// Drops the served prefix once it is most of the storage.
    private func compact() {
        if head == waiters.count {
            waiters.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > waiters.count {
            waiters.removeFirst(head)
            head = 0
        }
    }
}
