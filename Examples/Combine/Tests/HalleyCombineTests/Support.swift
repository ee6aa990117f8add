import Foundation
import Halley
import OpenCombine
import Testing

/// What a publisher sent: its values and how it completed.
struct Outcome<Value: Sendable>: Sendable {
    var values: [Value] = []
    var completion: Completion?

    enum Completion: Sendable {
        case finished
        case failure(any Error)
    }

    var finished: Bool {
        if case .finished = completion { return true }
        return false
    }

    var failure: (any Error)? {
        if case .failure(let error) = completion { return error }
        return nil
    }

    /// Subscribes with a sink and waits for the completion.
    static func of<P: Publisher>(_ publisher: P) async -> Outcome where P.Output == Value {
        let outcome = Guarded(Outcome())
        let keeper = Keeper()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            keeper.cancellable = publisher.sink { completion in
                switch completion {
                case .finished: outcome.mutate { $0.completion = .finished }
                case .failure(let error): outcome.mutate { $0.completion = .failure(error) }
                }
                continuation.resume()
            } receiveValue: { value in
                outcome.mutate { $0.values.append(value) }
            }
        }
        withExtendedLifetime(keeper) {}
        return outcome.current
    }
}

/// Holds a cancellable until the awaited completion arrives.
final class Keeper {
    var cancellable: AnyCancellable?
}

/// Holds a subscription so that a test can cancel it.
final class SubscriptionKeeper {
    var subscription: (any Subscription)?
}

/// A one-way flag a test waits on.
final class AsyncFlag: Sendable {
    private let state = Guarded<(raised: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func raise() {
        let waiters = state.mutate { state -> [CheckedContinuation<Void, Never>] in
            state.raised = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let raised = state.mutate { state -> Bool in
                if !state.raised { state.waiters.append(continuation) }
                return state.raised
            }
            if raised { continuation.resume() }
        }
    }
}

extension Guarded {
    /// Polls until `condition` holds; fails the test after ten seconds (a loaded machine's
    /// margin: each wait ends in milliseconds).
    func wait(until condition: (Value) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(current) {
            guard ContinuousClock.now < deadline else {
                Issue.record("still \(current) after 10 s", sourceLocation: sourceLocation)
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

/// Answers the URLs it knows at once; every other request waits until its task is
/// cancelled. Records which requests started and which were cancelled.
struct HangingRequester: RequesterInterface, Sendable {
    let documents: [String: String]
    let started = Guarded<[String]>([])
    let cancelled = Guarded<[String]>([])

    init(answering documents: [String: String]) {
        self.documents = documents
    }

    func response(for request: ResourceRequest) async throws -> ResourceResponse {
        let url = request.url.absoluteString
        if let document = documents[url] {
            return ResourceResponse(
                headers: ["Content-Type": "application/hal+json"], url: request.url,
                body: Data(document.utf8))
        }
        started.mutate { $0.append(url) }
        do {
            try await Task.sleep(for: .seconds(3600))
        } catch {
            cancelled.mutate { $0.append(url) }
            throw error
        }
        throw CancellationError()
    }
}
