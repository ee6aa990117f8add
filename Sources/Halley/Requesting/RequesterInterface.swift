import Foundation

/// Sends requests for the engine: URLSession by default, files, memory, or your own client.
///
/// A requester only moves bytes. It returns whatever status the server sent; turning
/// non-2xx statuses into errors, parsing, retries and credentials are the engine's job, so
/// every requester behaves the same.
///
/// ```swift
/// struct LoggingRequester: RequesterInterface {
///     let base = URLSessionRequester()
///     func response(for request: ResourceRequest) async throws -> ResourceResponse {
///         print(request.method, request.url)
///         return try await base.response(for: request)
///     }
/// }
/// ```
public protocol RequesterInterface: Sendable {
    /// Sends one request and returns the response, whatever its status.
    ///
    /// - Throws: Transport errors (no connection, timeout), and `CancellationError` when the
    ///   calling task is cancelled.
    func response(for request: ResourceRequest) async throws -> ResourceResponse

    /// URL schemes this requester fetches. The engine refuses links with other schemes
    /// (a document linking to `file:///etc/passwd` is an error, not a read). Defaults to
    /// `http` and `https`.
    var supportedSchemes: Set<String> { get }
}

extension RequesterInterface {
    /// `http` and `https`.
    public var supportedSchemes: Set<String> { ["http", "https"] }
}

// MARK: - Completion-handler requesters

/// A request in flight that a completion-handler requester can cancel; the shape of the
/// original Halley's `RequestContainerInterface`.
public protocol RequestContainerInterface: Sendable {
    /// Cancels the request; its completion should then report an error.
    func cancelRequest()
}

/// A requester in the original Halley's completion-handler shape, so an existing
/// Alamofire-style requester plugs in unchanged through ``CompletionRequesterAdapter``.
public protocol CompletionRequesterInterface: Sendable {
    /// Starts fetching `url` and calls `completion` exactly once with the body or an error.
    func requestResource(
        at url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void
    ) -> any RequestContainerInterface
}

/// Adapts a ``CompletionRequesterInterface`` to ``RequesterInterface``; cancelling the
/// calling task calls `cancelRequest()`.
///
/// Completion requesters report only a body, so responses carry status 200 and the
/// requested URL.
public struct CompletionRequesterAdapter<Base: CompletionRequesterInterface>: RequesterInterface {
    /// The wrapped requester.
    public let base: Base

    /// Wraps a completion-handler requester.
    public init(_ base: Base) { self.base = base }

    /// Starts the request through the base and awaits its completion.
    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        let container = LockedValue<(any RequestContainerInterface)?>(nil)
        let body: Data = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
                let once = LockedValue(false)
                let started = base.requestResource(at: request.url) { result in
                    // Resume once even if a buggy requester calls back twice.
                    guard once.exchange(true) == false else { return }
                    continuation.resume(with: result)
                }
                container.set(started)
                if Task.isCancelled { started.cancelRequest() }
            }
        } onCancel: {
            container.get()?.cancelRequest()
        }
        return ResourceResponse(
            status: 200, headers: ["Content-Type": "application/hal+json"], url: request.url, body: body)
    }
}
