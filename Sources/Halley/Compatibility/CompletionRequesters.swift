import Foundation

// The original Halley's requester shape, `requestResource(at:completion:)`, adapted to the
// engine's one call, `response(for:)`: the only place that waits on a completion handler.

extension RequesterInterface {
    /// For completion-handler requesters: fetches the request's URL through
    /// ``requestResource(at:completion:)`` and answers `200` with the body. Cancelling the
    /// calling task calls the container's `cancelRequest()`.
    ///
    /// - Throws: ``UnimplementedRequesterError`` when the type implements neither requirement.
    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        let route = request.completionAdapterNote.route
        // This type's own completion default made the request: it implements neither
        // requirement, and calling that default again would go round for ever.
        if route?.madeByCompletionDefaultOf == ObjectIdentifier(Self.self) {
            throw UnimplementedRequesterError(requester: String(reflecting: Self.self))
        }
        // The manager's turn for a non-Sendable requester ends once its call has returned:
        // nothing below touches the requester again, and the next request may start.
        let turn = route?.turn.flatMap { $0.owner == ObjectIdentifier(Self.self) ? $0.end : nil }
        let container = LockedValue<(any RequestContainerInterface)?>(nil)
        let cancelled = LockedValue(false)
        let body: Data = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
                let once = LockedValue(false)
                let started = requestResource(at: request.url) { result in
                    // Resume once even if a buggy requester calls back twice.
                    guard once.exchange(true) == false else { return }
                    continuation.resume(with: result)
                }
                turn?()
                container.set(started)
                if cancelled.get() { started.cancelRequest() }
            }
        } onCancel: {
            cancelled.set(true)
            container.get()?.cancelRequest()
        }
        return ResourceResponse(
            status: 200, headers: ["Content-Type": "application/hal+json"], url: request.url, body: body)
    }
}

extension RequesterInterface where Self: Sendable {
    /// For `async` requesters: the completion-handler call, running ``response(for:)`` for a
    /// `GET` of `url` in a task; a non-2xx status completes with an ``HTTPError``.
    public func requestResource(
        at url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void
    ) -> any RequestContainerInterface {
        var request = ResourceRequest(url: url)
        request.completionAdapterNote.route = CompletionAdapterNote.Route(
            madeByCompletionDefaultOf: ObjectIdentifier(Self.self))
        let task = Task {
            do {
                let response = try await response(for: request)
                completion(response.isSuccess ? .success(response.body) : .failure(HTTPError(response: response)))
            } catch {
                completion(.failure(error))
            }
        }
        return TaskContainer(task: task)
    }
}

/// The container of a completion call made on an `async` requester: cancelling cancels the task.
private struct TaskContainer: RequestContainerInterface {
    let task: Task<Void, Never>
    func cancelRequest() { task.cancel() }
}

/// A requester that reached the manager without `Sendable` in its type, made safe to share.
///
/// One that is `Sendable` after all, which a cast can tell (an actor, or one of Halley's own
/// requesters typed `any RequesterInterface`), is used as it is, so its requests overlap.
/// Any other is wrapped in a ``SerialRequester``.
func sharedRequester<Base: RequesterInterface>(_ base: sending Base) -> any RequesterInterface & Sendable {
    if let actor = base as? any RequesterInterface & Actor { return actor }
    if let builtIn = base as? any BuiltInRequester { return builtIn }
    return SerialRequester(base)
}

/// Halley's own requesters, all `Sendable`: a cast to this finds them behind a plain
/// `any RequesterInterface` (a cast to `Sendable` itself is not possible).
protocol BuiltInRequester: RequesterInterface, Sendable {}

extension CurlRequester: BuiltInRequester {}
extension URLSessionRequester: BuiltInRequester {}
extension FileRequester: BuiltInRequester {}

/// A requester that is not `Sendable` (the original Halley's completion-handler class, or an
/// `async` one), made safe to share: the manager's tasks enter it one at a time.
///
/// Each request takes the one turn, then calls the requester's ``RequesterInterface/response(for:)``
/// with the whole request. A completion-handler requester answers through the adapter above,
/// which ends the turn as soon as `requestResource(at:completion:)` has returned, so its
/// requests still overlap; an `async` requester holds the turn until it answers.
///
/// Unchecked sendability is sound: `base` is read in `init` (before the value is shared) and
/// otherwise only inside a turn. Turns come from a semaphore of one permit, whose lock orders
/// each turn after the one before; a turn ends when `base.response(for:)` returns, or earlier
/// when the adapter ends it after its only use of `base` (the adapter never touches the
/// requester again: it waits on its continuation and cancels through the container, which is
/// `Sendable`). So no two threads are ever inside `base` at once.
final class SerialRequester<Base: RequesterInterface>: RequesterInterface, @unchecked Sendable {
    private let base: Base
    private let turns = AsyncSemaphore(permits: 1)
    let supportedSchemes: Set<String>
    let enforcesRequestTimeout: Bool

    init(_ base: sending Base) {
        supportedSchemes = base.supportedSchemes
        enforcesRequestTimeout = base.enforcesRequestTimeout
        self.base = base
    }

    func response(for request: ResourceRequest) async throws -> ResourceResponse {
        try await turns.acquire()
        let ended = LockedValue(false)
        let turns = self.turns
        let end: @Sendable () -> Void = {
            if !ended.exchange(true) { turns.release() }
        }
        defer { end() }
        var request = request
        request.completionAdapterNote.route = CompletionAdapterNote.Route(turn: (ObjectIdentifier(Base.self), end))
        return try await base.response(for: request)
    }
}

/// The former name of a completion-handler requester: any ``RequesterInterface`` now accepts
/// ``RequesterInterface/requestResource(at:completion:)``.
@available(*, deprecated, message: "conform to RequesterInterface and pass the requester to ResourceManager directly")
public typealias CompletionRequesterInterface = RequesterInterface & Sendable

/// Formerly needed to use a completion-handler requester; a ``ResourceManager`` now takes one
/// directly. Forwards to the base.
@available(*, deprecated, message: "pass the requester to ResourceManager(requester:) directly")
public struct CompletionRequesterAdapter<Base: RequesterInterface & Sendable>: RequesterInterface, Sendable {
    /// The wrapped requester.
    public let base: Base

    /// Wraps a requester.
    public init(_ base: Base) { self.base = base }

    /// The base's answer.
    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        try await base.response(for: request)
    }
}
