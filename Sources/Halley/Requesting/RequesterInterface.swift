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
///   status, final URL): for new code. Make the type `Sendable`, and requests run
///   concurrently; a requester that is not `Sendable` is given one request at a time.
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
///   non-`Sendable` class: the manager never calls it from two threads at once, and requests
///   still overlap because the call returns at once; cancelling the calling task calls the
///   container's `cancelRequest()`. It sees only `GET` URLs and reports only a body, so its
///   responses count as `200` from the URL asked for.
///
/// Both are requirements because Swift calls a conforming type's own method only through a
/// requirement, and the original Halley's requesters conform to this protocol by
/// implementing `requestResource(at:completion:)` alone. Each has a default so that
/// implementing the other is enough: ``response(for:)``'s calls
/// ``requestResource(at:completion:)`` (the original Halley's adapter), and for a `Sendable`
/// type ``requestResource(at:completion:)``'s runs ``response(for:)`` in a task. A type that
/// implements neither compiles, but its first request fails with
/// ``UnimplementedRequesterError``; the two defaults never call each other in a loop.
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
}

/// A request in flight that a completion-handler requester can cancel; the original Halley's
/// `RequestContainerInterface`. `Sendable`, because cancellation arrives from whichever task
/// is cancelled (Alamofire's `DataRequest` is).
public protocol RequestContainerInterface: Sendable {
    /// Cancels the request; its completion should then report an error.
    func cancelRequest()
}

/// A requester that implements neither ``RequesterInterface/response(for:)`` nor
/// ``RequesterInterface/requestResource(at:completion:)``: Swift accepts the conformance
/// (each requirement has a default), so its first request fails with this instead.
///
/// ```swift
/// struct Forgotten: RequesterInterface, Sendable {}
/// // ResourceManager(requester: Forgotten()).document(at: url) throws a HalleyError whose
/// // underlying error is UnimplementedRequesterError(requester: "Forgotten")
/// ```
public struct UnimplementedRequesterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The requester's type name.
    public let requester: String

    /// Creates the error for a requester type's name.
    public init(requester: String) {
        self.requester = requester
    }

    /// One sentence naming the type and what it must implement.
    public var description: String {
        "\(requester) implements neither response(for:) nor requestResource(at:completion:) of RequesterInterface:"
            + " implement one of them"
    }
}

extension UnimplementedRequesterError: LocalizedError {
    /// The ``description``: the type and what it must implement.
    public var errorDescription: String? { description }
}

/// What the completion-handler adapter (`Compatibility/CompletionRequesters.swift`) must
/// know about a request it is handed: never part of the request's value, so it compares
/// equal and hashes alike whatever it holds, and is `nil` on every request the engine or a
/// caller makes.
struct CompletionAdapterNote: Sendable, Hashable {
    /// Where the request comes from, when the adapter made it or handed it on.
    final class Route: Sendable {
        /// The requester type whose ``RequesterInterface/requestResource(at:completion:)``
        /// default made the request: that type's ``RequesterInterface/response(for:)``
        /// default must not call it again.
        let madeByCompletionDefaultOf: ObjectIdentifier?
        /// The non-`Sendable` requester type whose turn the request runs in, and how to end
        /// that turn once its completion-handler call has returned.
        let turn: (owner: ObjectIdentifier, end: @Sendable () -> Void)?

        init(madeByCompletionDefaultOf: ObjectIdentifier? = nil, turn: (ObjectIdentifier, @Sendable () -> Void)? = nil)
        {
            self.madeByCompletionDefaultOf = madeByCompletionDefaultOf
            self.turn = turn.map { (owner: $0.0, end: $0.1) }
        }
    }

    var route: Route?

    static func == (_: CompletionAdapterNote, _: CompletionAdapterNote) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}
