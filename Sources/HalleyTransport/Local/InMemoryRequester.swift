import Foundation
import HalleyHAL

/// A requester answering from documents held in memory, with optional latency, counting
/// every request: for tests, benchmarks and previews.
///
/// ```swift
/// let requester = InMemoryRequester(latency: .milliseconds(20))
/// await requester.register("https://api.example.com/", json: ["_links": ["self": ["href": "/"]]])
/// let manager = ResourceManager(requester: requester)
/// _ = try await manager.resource(from: URL(string: "https://api.example.com/")!)
/// await requester.requestCount   // 1
/// ```
public actor InMemoryRequester: ResourceRequester {
    /// A canned response.
    public struct Route: Sendable {
        /// The status.
        public var status: Int
        /// The header fields.
        public var headers: HeaderFields
        /// The body.
        public var body: Data
        /// The latency of this route; the requester's default when `nil`.
        public var latency: Duration?
        /// Answer as if redirected here: the response's URL.
        public var finalURL: URL?

        /// Creates a route.
        public init(
            status: Int = 200, headers: HeaderFields = ["Content-Type": "application/hal+json"], body: Data,
            latency: Duration? = nil, finalURL: URL? = nil
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.latency = latency
            self.finalURL = finalURL
        }
    }

    /// Computes a response from the request; for scripted sequences and conditional requests.
    public typealias Handler = @Sendable (ResourceRequest) async throws -> ResourceResponse

    /// Routes, handlers and the request log, under a lock rather than the actor's isolation, so
    /// that ``response(for:)`` is `nonisolated`: a request then costs no hop onto the actor
    /// and back (two executor switches per request, and a queue on the actor whenever two
    /// tasks ask at once, which under a fan-out is most of the time). Every other member
    /// stays isolated, as it was, and reads the same state.
    private struct State {
        var routes: [String: Route] = [:]
        var handlers: [String: Handler] = [:]
        var inFlight = 0
        var requests: [ResourceRequest] = []
        var maxInFlight = 0
    }

    private let state = LockedValue(State())
    private let defaultLatency: Duration
    private let schemes: Set<String>

    /// Every request received, in arrival order.
    public var requests: [ResourceRequest] { state.withLock { $0.requests } }
    /// The most requests that were in flight at the same time.
    public var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    /// Creates an empty requester.
    ///
    /// - Parameters:
    ///   - latency: How long each response takes unless its route says otherwise.
    ///   - supportedSchemes: Schemes the engine may send here.
    public init(latency: Duration = .zero, supportedSchemes: Set<String> = ["http", "https"]) {
        defaultLatency = latency
        schemes = supportedSchemes
    }

    /// Schemes the engine may send here.
    public nonisolated var supportedSchemes: Set<String> { schemes }

    /// Answers `url` with `route`.
    public func register(_ url: String, _ route: Route) {
        let key = Self.key(url)
        state.withLock { $0.routes[key] = route }
    }

    /// Answers `url` by calling `handler` (after the requester's latency).
    public func register(_ url: String, handler: @escaping Handler) {
        let key = Self.key(url)
        state.withLock { $0.handlers[key] = handler }
    }

    /// Answers `url` with a JSON document.
    public func register(_ url: String, json: JSONValue, status: Int = 200, latency: Duration? = nil) {
        register(url, Route(status: status, body: json.serialized(), latency: latency))
    }

    /// Answers `url` with JSON text.
    public func register(_ url: String, text: String, status: Int = 200, latency: Duration? = nil) {
        register(url, Route(status: status, body: Data(text.utf8), latency: latency))
    }

    /// The number of requests received.
    public var requestCount: Int { state.withLock { $0.requests.count } }

    /// The URLs requested, in arrival order.
    public var requestedURLs: [String] { requests.map(\.location.text) }

    /// How many times `url` was requested.
    public func count(for url: String) -> Int {
        let key = Self.key(url)
        return requests.lazy.filter { Self.key($0.location.text) == key }.count
    }

    /// Forgets the recorded requests (routes stay).
    public func resetCounts() {
        state.withLock { state in
            state.requests = []
            state.maxInFlight = 0
        }
    }

    /// Answers from the registered routes; `404` for unknown URLs.
    ///
    /// - Throws: ``TransportError`` with the code ``TransportError/Code/timedOut`` when the route's latency, or the latency and its
    ///   handler together, would pass ``ResourceRequest/timeout``; `CancellationError`; what a
    ///   handler throws.
    public nonisolated func response(for request: ResourceRequest) async throws -> ResourceResponse {
        let key = Self.key(request.location.text)
        let defaultLatency = self.defaultLatency
        var (route, handler) = state.withLock { state -> (Route?, Handler?) in
            state.requests.append(request)
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            let route = state.routes[key]
            // At zero latency the handler is read now, with the route: nothing comes between
            // the two (with a latency, it is read after it: one registered meanwhile answers).
            let latency = route?.latency ?? defaultLatency
            return (route, latency > .zero || state.handlers.isEmpty ? nil : state.handlers[key])
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        let latency = route?.latency ?? defaultLatency
        var remaining = request.timeout
        // The waiting and the handlers are out of line: each uses values (a clock, generic
        // time limits) whose size is known only at run time, which an async function
        // allocates in its frame on entry, on every request, even at zero latency.
        if latency > .zero {
            remaining = try await wait(latency, for: request)
            handler = state.withLock { $0.handlers.isEmpty ? nil : $0.handlers[key] }
        } else {
            try Task.checkCancellation()
        }
        if let handler {
            return try await answer(request, with: handler, within: remaining)
        }
        guard let route else {
            return ResourceResponse(
                status: 404, headers: ["Content-Type": "text/plain"], url: request.url,
                body: Data("no route for \(request.url.absoluteString)".utf8))
        }
        return ResourceResponse(
            status: route.status, headers: route.headers,
            location: route.finalURL.map(LazyURL.init) ?? request.location,
            body: route.body)
    }

    /// Sleeps for `latency`, or fails as a timeout when the request's own limit comes first.
    /// Returns what is left of that limit.
    private nonisolated func wait(_ latency: Duration, for request: ResourceRequest) async throws -> Duration? {
        let remaining = request.timeout
        if let limit = remaining, limit <= latency {
            try await Task.sleep(for: limit)
            throw TransportError(code: .timedOut, url: request.url, limit: request.timeout)
        }
        try await Task.sleep(for: latency)
        return remaining.map { $0 - latency }
    }

    /// `handler`'s answer, held to what is left of the request's limit.
    private nonisolated func answer(
        _ request: ResourceRequest, with handler: @escaping Handler, within remaining: Duration?
    )
        async throws -> ResourceResponse
    {
        guard let remaining else { return try await handler(request) }
        // A handler may take any time: it is held to what is left of the limit.
        let timedOut = TransportError(code: .timedOut, url: request.url, limit: request.timeout)
        return try await withTimeLimit(remaining, { try await handler(request) }, timeoutError: { timedOut })
    }

    /// `true`: every answer, latency and handlers included, comes within ``ResourceRequest/timeout``
    /// or fails with ``TransportError/Code/timedOut``.
    public nonisolated var enforcesRequestTimeout: Bool { true }

    private nonisolated static func key(_ url: String) -> String { url }
}
