import Foundation

/// Sends requests for the engine: URLSession by default, files, memory, or your own client.
///
/// A requester only moves bytes. It returns whatever status the server sent; turning
/// non-2xx statuses into errors, parsing, retries and credentials are the engine's job, so
/// every requester behaves the same.
///
/// Implement **one** of the two requirements:
///
/// - ``response(for:)``, `async`, with the whole request and response (method, headers,
///   status, final URL). Make the type `Sendable`: the engine calls it from many tasks at once.
///
///   ```swift
///   struct LoggingRequester: RequesterInterface, Sendable {
///       let base = URLSessionRequester()
///       func response(for request: ResourceRequest) async throws -> ResourceResponse {
///           print(request.method, request.url)
///           return try await base.response(for: request)
///       }
///   }
///   ```
///
/// - ``requestResource(at:completion:)``, the original Halley's completion-handler shape, so
///   an existing requester (an Alamofire class, say) plugs in unchanged:
///   `ResourceManager(requester: AlamofireRequester())`. Such a requester may be a plain,
///   non-`Sendable` class: the manager then calls it from one serial executor, never from two
///   threads at once, and cancelling the calling task calls the container's `cancelRequest()`.
///   It sees only `GET` URLs and reports only a body, so its responses count as `200` from the
///   URL asked for.
///
/// Each requirement has a default written in terms of the other; a type implementing neither
/// does not compile unless it is `Sendable`, and then each default would call the other
/// forever, so always implement one.
public protocol RequesterInterface {
    /// Sends one request and returns the response, whatever its status.
    ///
    /// - Throws: Transport errors (no connection, timeout): a ``TransportError``, or a
    ///   `URLError` or `POSIXError` the engine reads into one (see
    ///   ``TransportError/init(classifying:url:)``); `CancellationError` when the calling task
    ///   is cancelled.
    func response(for request: ResourceRequest) async throws -> ResourceResponse

    /// Starts fetching `url` and calls `completion` exactly once with the body or an error:
    /// the original Halley's requester shape.
    ///
    /// - Returns: A handle whose `cancelRequest()` stops the request.
    func requestResource(
        at url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void
    ) -> any RequestContainerInterface

    /// URL schemes this requester fetches. The engine refuses links with other schemes
    /// (a document linking to `file:///etc/passwd` is an error, not a read). Defaults to
    /// `http` and `https`.
    var supportedSchemes: Set<String> { get }

    /// Whether ``response(for:)`` itself ends every attempt within ``ResourceRequest/timeout``,
    /// throwing ``TransportError/Code/timedOut`` or `URLError(.timedOut)` (or
    /// `CancellationError` when cancelled) however the
    /// server behaves. The engine then trusts it instead of racing each attempt against its
    /// own watchdog, which costs a task per request. Defaults to `false`: the engine enforces
    /// the limit whatever the requester does.
    ///
    /// A wrapper that adds nothing that could wait keeps its base's answer:
    ///
    /// ```swift
    /// struct LoggingCurlRequester: RequesterInterface, Sendable {
    ///     let base: CurlRequester
    ///     var enforcesRequestTimeout: Bool { base.enforcesRequestTimeout }   // true
    ///     func response(for request: ResourceRequest) async throws -> ResourceResponse {
    ///         print(request.method, request.url)
    ///         return try await base.response(for: request)
    ///     }
    /// }
    /// ```
    var enforcesRequestTimeout: Bool { get }
}

extension RequesterInterface {
    /// `http` and `https`.
    public var supportedSchemes: Set<String> { ["http", "https"] }

    /// `false`: the engine holds each attempt to ``ResourceRequest/timeout`` itself.
    public var enforcesRequestTimeout: Bool { false }

    /// For completion-handler requesters: fetches the request's URL through
    /// ``requestResource(at:completion:)`` and answers `200` with the body. Cancelling the
    /// calling task calls the container's `cancelRequest()`.
    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
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
    /// For `async` requesters: the completion-handler call, running ``response(for:)`` in a
    /// task; a non-2xx status completes with an ``HTTPError``.
    ///
    /// When a manager calls it (an `async` requester that reached the manager as a plain
    /// `any RequesterInterface`), the whole request and response travel beside the
    /// completion, so nothing of either is lost.
    public func requestResource(
        at url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void
    ) -> any RequestContainerInterface {
        let exchange = Exchange.current
        let task = Task {
            do {
                let response = try await response(for: exchange?.request ?? ResourceRequest(url: url))
                exchange?.response.set(response)
                let success = response.isSuccess || exchange != nil
                completion(success ? .success(response.body) : .failure(HTTPError(response: response)))
            } catch {
                completion(.failure(error))
            }
        }
        return TaskContainer(task: task)
    }
}

/// A request in flight that a completion-handler requester can cancel; the original Halley's
/// `RequestContainerInterface`. `Sendable`, because cancellation arrives from whichever task
/// is cancelled (Alamofire's `DataRequest` is).
public protocol RequestContainerInterface: Sendable {
    /// Cancels the request; its completion should then report an error.
    func cancelRequest()
}

/// The request a manager sends through ``RequesterInterface/requestResource(at:completion:)``
/// and the response that comes back, carried beside the completion for `async` requesters.
final class Exchange: Sendable {
    @TaskLocal static var current: Exchange?

    let request: ResourceRequest
    let response = LockedValue<ResourceResponse?>(nil)

    init(request: ResourceRequest) {
        self.request = request
    }
}

/// The container of a completion call made on an `async` requester: cancelling cancels the task.
private struct TaskContainer: RequestContainerInterface {
    let task: Task<Void, Never>
    func cancelRequest() { task.cancel() }
}

/// A non-`Sendable` requester made safe to share: every call reaches it from this actor, one
/// at a time, so the engine's concurrent tasks never touch it at once.
///
/// Only the completion-handler requirement is used: it returns at once, so the actor is never
/// held while a request is in flight, and requests still run concurrently.
actor SerialRequester<Base: RequesterInterface>: RequesterInterface {
    private let base: Base
    nonisolated let supportedSchemes: Set<String>

    init(_ base: sending Base) {
        supportedSchemes = base.supportedSchemes
        self.base = base
    }

    func response(for request: ResourceRequest) async throws -> ResourceResponse {
        let cancelled = LockedValue(false)
        let container = LockedValue<(any RequestContainerInterface)?>(nil)
        let exchange = Exchange(request: request)
        let body: Data = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
                let once = LockedValue(false)
                let started = Exchange.$current.withValue(exchange) {
                    base.requestResource(at: request.url) { result in
                        guard once.exchange(true) == false else { return }
                        continuation.resume(with: result)
                    }
                }
                container.set(started)
                if cancelled.get() { started.cancelRequest() }
            }
        } onCancel: {
            cancelled.set(true)
            container.get()?.cancelRequest()
        }
        // An `async` requester answered in full; a completion-handler one only with a body.
        return exchange.response.get()
            ?? ResourceResponse(
                status: 200, headers: ["Content-Type": "application/hal+json"], url: request.url, body: body)
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
