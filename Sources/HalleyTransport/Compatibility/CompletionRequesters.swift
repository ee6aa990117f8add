import Foundation
import HalleyHAL

// The original Halley's requester shape, `requestResource(at:completion:)`, adapted to the
// engine's one call, `response(for:)`: the only place that waits on a completion handler.

extension RequesterInterface {
    /// For completion-handler requesters: fetches the request's URL through
    /// ``requestResource(at:completion:)`` and answers `200` with the body. Cancelling the
    /// calling task calls the container's `cancelRequest()`.
    ///
    /// - Throws: ``UnimplementedRequesterError`` when the type implements neither requirement.
    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        do {
            return try await completionResponse(to: request) { requestResource(at: $0, completion: $1) }
        } catch let error as UnimplementedRequesterError where error.isCompletionCall(of: Self.self) {
            // Its completion call is the default too, so it implements neither.
            throw UnimplementedRequesterError(requester: String(reflecting: Self.self))
        }
    }

    /// For `async` requesters, which do not answer the completion call: completes at once
    /// with an ``UnimplementedRequesterError``.
    ///
    /// It exists so that a type implementing only ``response(for:)`` conforms, and it never
    /// calls that: when each default called the other, a type implementing neither went round
    /// between them for ever.
    public func requestResource(
        at url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void
    ) -> any RequestContainerInterface {
        completion(.failure(UnimplementedRequesterError.completionCall(of: Self.self)))
        return NothingStarted()
    }
}

/// The container of a completion call that started nothing.
private struct NothingStarted: RequestContainerInterface {
    func cancelRequest() {}
}

/// Makes one completion-handler call and waits for it: `start` is called once, at once, with
/// the request's URL and the completion, and returns the container. Cancelling the calling
/// task calls the container's `cancelRequest()` exactly once, whether it comes before or
/// after `start` has returned. A completion called twice counts once.
///
/// The completion reports only a body, so the response is a `200` from the URL asked for.
func completionResponse(
    to request: ResourceRequest,
    start: (URL, @escaping @Sendable (Result<Data, any Error>) -> Void) -> any RequestContainerInterface
) async throws -> ResourceResponse {
    let call = LockedValue<(container: (any RequestContainerInterface)?, cancelled: Bool)>((nil, false))
    let body: Data = try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
            let completed = LockedValue(false)
            let container = start(request.url) { result in
                guard completed.exchange(true) == false else { return }
                continuation.resume(with: result)
            }
            let cancelled = call.withLock { call -> Bool in
                call.container = container
                return call.cancelled
            }
            if cancelled { container.cancelRequest() }
        }
    } onCancel: {
        let container = call.withLock { call -> (any RequestContainerInterface)? in
            call.cancelled = true
            return call.container
        }
        container?.cancelRequest()
    }
    return ResourceResponse(
        status: 200, headers: ["Content-Type": "application/hal+json"], url: request.url, body: body)
}

/// A requester that reached the manager without `Sendable` in its type, made safe to share.
///
/// One that is `Sendable` after all, which a cast can tell (an actor, or one of Halley's own
/// requesters typed `any RequesterInterface`), is used as it is, so its requests overlap.
/// Any other is wrapped in a ``SerialRequester``.
package func sharedRequester<Base: RequesterInterface>(_ base: sending Base) -> any RequesterInterface & Sendable {
    if let actor = base as? any RequesterInterface & Actor { return actor }
    if let builtIn = base as? any BuiltInRequester { return builtIn }
    return SerialRequester(base)
}

/// Halley's own requesters, all `Sendable`: a cast to this finds them behind a plain
/// `any RequesterInterface` (a cast to `Sendable` itself is not possible).
protocol BuiltInRequester: RequesterInterface, Sendable {}

// Halley's requesters are `ResourceRequester`s; they stay `RequesterInterface`s too, because
// code written against 0.2.0 passes them as `any RequesterInterface`.

// libcurl is not part of iOS, tvOS, watchOS or visionOS: CurlRequester is macOS's and Linux's.
@available(iOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@available(visionOS, unavailable)
extension CurlRequester: RequesterInterface, BuiltInRequester {}
extension URLSessionRequester: RequesterInterface, BuiltInRequester {}
extension FileRequester: RequesterInterface, BuiltInRequester {}
extension InMemoryRequester: RequesterInterface {}

/// A requester that is not `Sendable`, made safe to share: no two threads are ever inside it
/// at once.
///
/// The original Halley's completion-handler class is entered only for the synchronous
/// ``RequesterInterface/requestResource(at:completion:)`` call, which returns at once, so its
/// requests still overlap. One that does not answer that call (its default reports so at
/// once; this is remembered) implements ``ResourceRequester/response(for:)``, which gets the
/// whole request, one request at a time.
///
/// Unchecked sendability is sound: `base` is read in `init` (before the value is shared) and
/// otherwise only while holding `turn`, a semaphore of one permit whose lock orders each turn
/// after the one before. A completion call's turn ends when `requestResource` returns: the
/// completion and the container never touch `base` (the container is `Sendable`).
final class SerialRequester<Base: RequesterInterface>: RequesterInterface, @unchecked Sendable {
    private let base: Base
    private let turn = AsyncSemaphore(permits: 1)
    /// `false` once `base` has answered a completion call with its default.
    private let answersCompletion = LockedValue(true)
    let supportedSchemes: Set<String>
    let enforcesRequestTimeout: Bool

    init(_ base: sending Base) {
        supportedSchemes = base.supportedSchemes
        enforcesRequestTimeout = base.enforcesRequestTimeout
        self.base = base
    }

    func response(for request: ResourceRequest) async throws -> ResourceResponse {
        if answersCompletion.get() {
            do {
                return try await completionCall(request)
            } catch let error as UnimplementedRequesterError where error.isCompletionCall(of: type(of: base)) {
                answersCompletion.set(false)
            }
        }
        try await turn.acquire()
        defer { turn.release() }
        return try await base.response(for: request)
    }

    /// The request as a completion call, in a turn that ends when the call returns.
    private func completionCall(_ request: ResourceRequest) async throws -> ResourceResponse {
        try await turn.acquire()
        var holding = true
        defer { if holding { turn.release() } }
        return try await completionResponse(to: request) { url, completion in
            defer {
                holding = false
                turn.release()
            }
            return base.requestResource(at: url, completion: completion)
        }
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

/// A ``ResourceRequester`` seen as a ``RequesterInterface``: what
/// `ResourceManager.requester` returns for a requester that is only the former, so that
/// property keeps its type. Every member forwards to the base; the completion call too when
/// the base answers it, else its default reports that it is not implemented.
package struct RequesterInterfaceView<Base: ResourceRequester & Sendable>: RequesterInterface, Sendable {
    /// The requester forwarded to.
    package let base: Base

    package init(_ base: Base) { self.base = base }

    package var supportedSchemes: Set<String> { base.supportedSchemes }

    package var enforcesRequestTimeout: Bool { base.enforcesRequestTimeout }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    package var preferredTaskExecutor: (any TaskExecutor)? { base.preferredTaskExecutor }

    package func response(for request: ResourceRequest) async throws -> ResourceResponse {
        try await base.response(for: request)
    }

    package func requestResource(
        at url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void
    ) -> any RequestContainerInterface {
        if let legacy = base as? any RequesterInterface {
            return legacy.requestResource(at: url, completion: completion)
        }
        completion(.failure(UnimplementedRequesterError.completionCall(of: Base.self)))
        return NothingStarted()
    }
}
