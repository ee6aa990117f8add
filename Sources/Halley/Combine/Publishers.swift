// Combine publishers for apps migrating from the original Halley and Ombi. Compiled on
// platforms with Combine; Examples/Combine compiles these same files against OpenCombine
// (defining HALLEY_OPENCOMBINE), so Linux CI runs their tests. Only Halley's public API is
// used here, because in that package these files form a module of their own.
#if HALLEY_OPENCOMBINE
    import Foundation
    import Halley
    import OpenCombine
#elseif canImport(Combine)
    import Combine
    import Foundation
#endif

#if HALLEY_OPENCOMBINE || canImport(Combine)
    /// A publisher that runs one `async` operation per subscriber: started at the subscriber's
    /// first demand, cancelled (with every request it has in flight) when the subscription is.
    struct OperationPublisher<Output, Failure: Error>: Publisher {
        let operation: () async -> Result<Output, Failure>

        func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            subscriber.receive(subscription: OperationSubscription(subscriber: subscriber, operation: operation))
        }
    }

    /// Publishes an operation's value and finishes, or fails with its error.
    func failingPublisher<Output>(_ operation: @escaping () async throws -> Output)
        -> AnyPublisher<Output, any Error>
    {
        OperationPublisher<Output, any Error> {
            do {
                return .success(try await operation())
            } catch {
                return .failure(error)
            }
        }
        .eraseToAnyPublisher()
    }

    /// Publishes an operation's outcome as one `Result` and finishes: the original Halley's
    /// shape for manual traversal, whose publishers never fail.
    func resultPublisher<Output>(_ operation: @escaping () async throws -> Output)
        -> AnyPublisher<Result<Output, any Error>, Never>
    {
        OperationPublisher<Result<Output, any Error>, Never> {
            do {
                return .success(.success(try await operation()))
            } catch {
                return .success(.failure(error))
            }
        }
        .eraseToAnyPublisher()
    }

    // @unchecked Sendable: the one closure a subscription hands its task. It captures the
    // subscription (Sendable), the manager and the request values (Sendable), and the generic
    // metatypes, which Swift 6.2 only flags because a conformance could be isolated to an
    // actor; Halley's async calls already run the same generic decoding on no actor at all.
    // It is called exactly once, by that task, never concurrently.
    /// The work a subscription's task runs.
    struct TaskWork: @unchecked Sendable {
        let run: () async -> Void
    }

    /// A small lock around a subscription's state (from when the package supported macOS 13,
    /// which has no `NSLock.withLock`).
    final class SubscriptionLock: Sendable {
        private let lock = NSLock()

        func withLock<Value>(_ body: () throws -> Value) rethrows -> Value {
            lock.lock()
            defer { lock.unlock() }
            return try body()
        }
    }

    // @unchecked Sendable: `task` and `cancelled` are read and written only inside
    // `lock.withLock`.
    /// The one task a subscription runs its work in. A cancel reaches it whichever comes
    /// first: cancelled before the task is stored, the task is cancelled as soon as it is.
    final class SubscriptionTask: @unchecked Sendable {
        private let lock = SubscriptionLock()
        private var task: Task<Void, Never>?
        private var cancelled = false

        /// Runs `work` in a new task.
        func start(_ work: TaskWork) {
            let task = Task { await work.run() }
            let cancelledMeanwhile = lock.withLock { () -> Bool in
                guard !cancelled else { return true }
                self.task = task
                return false
            }
            if cancelledMeanwhile { task.cancel() }
        }

        /// Cancels the task, or the one started after this call.
        func cancel() {
            let task = lock.withLock { () -> Task<Void, Never>? in
                cancelled = true
                defer { self.task = nil }
                return self.task
            }
            task?.cancel()
        }

        /// Lets the task go once its work is done, before it hands the subscriber its
        /// completion: a cancel from then on has nothing left to stop.
        func finished() {
            lock.withLock { task = nil }
        }
    }

    // @unchecked Sendable: every stored `var` is read and written only inside `lock.withLock`;
    // the subscriber is called outside the lock, only by the one task that took it out of
    // `subscriber` (so after a cancel it is never called again, and never called twice).
    /// The subscription of an ``OperationPublisher``.
    final class OperationSubscription<S: Subscriber>: Subscription, @unchecked Sendable {
        private let lock = SubscriptionLock()
        private let running = SubscriptionTask()
        private var subscriber: S?
        private var operation: (() async -> Result<S.Input, S.Failure>)?

        init(subscriber: S, operation: @escaping () async -> Result<S.Input, S.Failure>) {
            self.subscriber = subscriber
            self.operation = operation
        }

        func request(_ demand: Subscribers.Demand) {
            guard demand > .none else { return }
            // The first positive demand starts the operation; later demands change nothing.
            guard
                let operation = lock.withLock({ () -> (() async -> Result<S.Input, S.Failure>)? in
                    defer { self.operation = nil }
                    return self.operation
                })
            else { return }
            running.start(TaskWork { [self] in finish(with: await operation()) })
        }

        func cancel() {
            lock.withLock {
                subscriber = nil
                operation = nil
            }
            running.cancel()
        }

        private func finish(with result: Result<S.Input, S.Failure>) {
            running.finished()
            let subscriber = lock.withLock { () -> S? in
                defer { self.subscriber = nil }
                return self.subscriber
            }
            guard let subscriber else { return }  // cancelled: nothing more is sent
            switch result {
            case .success(let value):
                _ = subscriber.receive(value)
                subscriber.receive(completion: .finished)
            case .failure(let error):
                subscriber.receive(completion: .failure(error))
            }
        }
    }

    /// A publisher of an `AsyncSequence`'s elements that honours demand: the sequence is read
    /// only as far as the subscriber asked, so a paged collection fetches a page only when its
    /// items are wanted, and cancelling stops the paging with its request in flight.
    struct SequencePublisher<Base: AsyncSequence & Sendable>: Publisher {
        typealias Output = Base.Element
        typealias Failure = any Error

        let base: Base

        func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            subscriber.receive(subscription: SequenceSubscription(subscriber: subscriber, base: base))
        }
    }

    // @unchecked Sendable: every stored `var` is read and written only inside `lock.withLock`;
    // the subscriber is called only from the one reading task, outside the lock.
    /// The subscription of a ``SequencePublisher``.
    final class SequenceSubscription<S: Subscriber, Base: AsyncSequence & Sendable>: Subscription,
        @unchecked Sendable
    where S.Input == Base.Element, S.Failure == any Error {
        private let lock = SubscriptionLock()
        private let running = SubscriptionTask()
        private var subscriber: S?
        private var base: Base?
        private var demand = Subscribers.Demand.none
        private var waiter: CheckedContinuation<Void, Never>?

        init(subscriber: S, base: Base) {
            self.subscriber = subscriber
            self.base = base
        }

        func request(_ demand: Subscribers.Demand) {
            guard demand > .none else { return }
            let (waiter, base) = lock.withLock { () -> (CheckedContinuation<Void, Never>?, Base?) in
                guard subscriber != nil else { return (nil, nil) }
                self.demand += demand
                defer {
                    self.waiter = nil
                    self.base = nil
                }
                return (self.waiter, self.base)
            }
            waiter?.resume()
            guard let base else { return }  // already reading
            running.start(TaskWork { [self] in await read(base) })
        }

        func cancel() {
            let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                defer {
                    subscriber = nil
                    base = nil
                    self.waiter = nil
                }
                return self.waiter
            }
            waiter?.resume()
            running.cancel()
        }

        private func read(_ base: Base) async {
            var iterator = base.makeAsyncIterator()
            do {
                while await demandArrived() {
                    guard let element = try await iterator.next() else { return complete(.finished) }
                    guard let subscriber = lock.withLock({ self.subscriber }) else { return }
                    let more = subscriber.receive(element)
                    lock.withLock {
                        demand -= 1
                        demand += more
                    }
                }
            } catch {
                complete(.failure(error))
            }
        }

        /// Waits until the subscriber wants another element; `false` once it has cancelled.
        private func demandArrived() async -> Bool {
            while true {
                let state = lock.withLock { (subscriber != nil, demand > .none) }
                guard state.0 else { return false }
                if state.1 { return true }
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = lock.withLock { () -> Bool in
                        guard subscriber != nil, demand == .none else { return true }
                        waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }

        private func complete(_ completion: Subscribers.Completion<any Error>) {
            running.finished()
            let subscriber = lock.withLock { () -> S? in
                defer { self.subscriber = nil }
                return self.subscriber
            }
            subscriber?.receive(completion: completion)
        }
    }
#endif
