import Foundation

/// Sends requests for the engine: URLSession by default, files, memory, or your own client.
///
/// A requester only moves bytes. It returns whatever status the server sent; turning
/// non-2xx statuses into errors, parsing, retries and credentials are the engine's job, so
/// every requester behaves the same.
///
/// This is the protocol to implement. Its one required member is ``response(for:)``, so the
/// compiler tells you when it is missing; the other members are settings with defaults.
/// Make the type `Sendable`, and requests run concurrently:
///
/// ```swift
/// struct LoggingRequester: ResourceRequester, Sendable {
///     let base = URLSessionRequester()
///     func response(for request: ResourceRequest) async throws -> ResourceResponse {
///         print(request.method, request.url)
///         return try await base.response(for: request)
///     }
/// }
/// ```
///
/// ``RequesterInterface`` refines it with the original Halley's completion-handler call,
/// ``RequesterInterface/requestResource(at:completion:)``, for requesters written for Halley.
public protocol ResourceRequester {
    /// Sends one request and returns the response, whatever its status.
    ///
    /// - Throws: Transport errors (no connection, timeout): a ``TransportError``, or a
    ///   `URLError` or `POSIXError` the engine reads into one (see
    ///   ``TransportError/init(classifying:url:)``); `CancellationError` when the calling task
    ///   is cancelled.
    func response(for request: ResourceRequest) async throws -> ResourceResponse

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
    /// struct LoggingCurlRequester: ResourceRequester, Sendable {
    ///     let base: CurlRequester
    ///     var enforcesRequestTimeout: Bool { base.enforcesRequestTimeout }   // true
    ///     func response(for request: ResourceRequest) async throws -> ResourceResponse {
    ///         print(request.method, request.url)
    ///         return try await base.response(for: request)
    ///     }
    /// }
    /// ```
    var enforcesRequestTimeout: Bool { get }

    /// The executor a ``ResourceManager`` call through this requester runs its own work on
    /// (parsing, merging, sending the next requests), or `nil` for Swift's global executor,
    /// the default. ``CurlRequester`` gives its loop thread, so a response reaches the
    /// traversal, and the next request reaches libcurl, without waking another thread. The
    /// call's result still comes back on the caller's executor.
    ///
    /// A wrapper that adds nothing that could block keeps its base's answer:
    ///
    /// ```swift
    /// struct LoggingCurlRequester: ResourceRequester, Sendable {
    ///     let base: CurlRequester
    ///     var enforcesRequestTimeout: Bool { base.enforcesRequestTimeout }
    ///     @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    ///     var preferredTaskExecutor: (any TaskExecutor)? { base.preferredTaskExecutor }
    ///     func response(for request: ResourceRequest) async throws -> ResourceResponse {
    ///         print(request.method, request.url)
    ///         return try await base.response(for: request)
    ///     }
    /// }
    /// ```
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    var preferredTaskExecutor: (any TaskExecutor)? { get }
}

extension ResourceRequester {
    /// `http` and `https`.
    public var supportedSchemes: Set<String> { ["http", "https"] }

    /// `false`: the engine holds each attempt to ``ResourceRequest/timeout`` itself.
    public var enforcesRequestTimeout: Bool { false }

    /// `nil`: calls run their work on Swift's global executor.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public var preferredTaskExecutor: (any TaskExecutor)? { nil }
}
