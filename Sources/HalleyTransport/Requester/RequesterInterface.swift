import Foundation

/// Sends requests for the engine: URLSession by default, files, memory, or your own client.
///
/// A requester only moves bytes. It returns whatever status the server sent; turning
/// non-2xx statuses into errors, parsing, retries and credentials are the engine's job, so
/// every requester behaves the same.
///
/// Implement **one** of the two request requirements:
///
/// - ``response(for:)``, `async`, with the whole request and response (method, headers,
///   status, final URL): for new code, and the only one the engine calls. Make the type
///   `Sendable`, and requests run concurrently.
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
///   `ResourceManager(requester: AlamofireRequester())`. ``response(for:)``'s default is the
///   adapter that calls it. Such a requester may be a plain, non-`Sendable` class: the
///   manager never calls it from two threads at once, and requests still overlap because the
///   call returns at once; cancelling the calling task calls the container's
///   `cancelRequest()`. It sees only `GET` URLs and reports only a body, so its responses
///   count as `200` from the URL asked for.
///
/// The defaults go one way only: ``response(for:)``'s calls ``requestResource(at:completion:)``,
/// whose own default calls nothing and completes with ``UnimplementedRequesterError``. So a
/// type that implements neither (Swift accepts it, since both have defaults) fails its first
/// request with that error, and an `async` requester does not answer the completion call.
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

    /// The executor a ``ResourceManager`` call through this requester runs its own work on
    /// (parsing, merging, sending the next requests), or `nil` for Swift's global executor,
    /// the default. ``CurlRequester`` gives its loop thread, so a response reaches the
    /// traversal, and the next request reaches libcurl, without waking another thread. The
    /// call's result still comes back on the caller's executor.
    ///
    /// A wrapper that adds nothing that could block keeps its base's answer:
    ///
    /// ```swift
    /// struct LoggingCurlRequester: RequesterInterface, Sendable {
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

extension RequesterInterface {
    /// `http` and `https`.
    public var supportedSchemes: Set<String> { ["http", "https"] }

    /// `false`: the engine holds each attempt to ``ResourceRequest/timeout`` itself.
    public var enforcesRequestTimeout: Bool { false }

    /// `nil`: calls run their work on Swift's global executor.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public var preferredTaskExecutor: (any TaskExecutor)? { nil }
}

/// A request in flight that a completion-handler requester can cancel; the original Halley's
/// `RequestContainerInterface`. `Sendable`, because cancellation arrives from whichever task
/// is cancelled (Alamofire's `DataRequest` is).
public protocol RequestContainerInterface: Sendable {
    /// Cancels the request; its completion should then report an error.
    func cancelRequest()
}

/// A requester was asked for something it does not implement: the engine's first request
/// to a type that implements neither ``RequesterInterface/response(for:)`` nor
/// ``RequesterInterface/requestResource(at:completion:)`` (Swift accepts the conformance,
/// since each has a default), or a completion call to an `async` requester.
///
/// ```swift
/// struct Forgotten: RequesterInterface, Sendable {}
/// // ResourceManager(requester: Forgotten()).document(at: url) throws a HalleyError whose
/// // underlying error is UnimplementedRequesterError(requester: "Forgotten")
/// ```
public struct UnimplementedRequesterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The requester's type name.
    public let requester: String
    /// Whether only the completion call is missing: the requester may implement
    /// ``RequesterInterface/response(for:)``, which nothing has called.
    let completionOnly: Bool
    /// The requester's type, to tell its own missing call from one it passed on.
    let type: ObjectIdentifier?

    /// Creates the error for a requester type's name that implements neither requirement.
    public init(requester: String) {
        self.init(requester: requester, completionOnly: false, type: nil)
    }

    init(requester: String, completionOnly: Bool, type: ObjectIdentifier?) {
        self.requester = requester
        self.completionOnly = completionOnly
        self.type = type
    }

    /// The error of a requester type whose completion call nothing answers.
    static func completionCall(of requester: Any.Type) -> UnimplementedRequesterError {
        UnimplementedRequesterError(
            requester: String(reflecting: requester), completionOnly: true, type: ObjectIdentifier(requester))
    }

    /// Whether this is the requester type's own completion call going unanswered (not one of
    /// a requester it called).
    func isCompletionCall(of requester: Any.Type) -> Bool {
        completionOnly && type == ObjectIdentifier(requester)
    }

    /// One sentence naming the type and what it must implement.
    public var description: String {
        completionOnly
            ? "\(requester) does not implement requestResource(at:completion:), the original Halley's completion call:"
                + " call its response(for:) instead"
            : "\(requester) implements neither response(for:) nor requestResource(at:completion:) of RequesterInterface:"
                + " implement one of them"
    }
}
