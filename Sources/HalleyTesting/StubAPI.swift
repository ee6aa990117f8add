import Foundation
import Halley

/// A HAL API declared in Swift, for testing client code: served in memory through
/// ``requester`` or on a real loopback socket through ``serve()``, with a log of every request,
/// per-route latency and faults, and a recorded-fixture mode.
///
/// ```swift
/// let api = StubAPI()
/// api.resource("/", StubResource().link("contacts", "/contacts{?page,size}", templated: true))
/// let ann = api.resource("/contacts/1", StubResource(["name": "Ann"]))
/// api.collection("/contacts", items: [ann], pageSize: 20)
///
/// let manager = ResourceManager(requester: api.requester)
/// _ = try await manager.entry("https://api.example.test/").follow("contacts").get()
/// #expect(api.requestLines == ["GET /", "GET /contacts"])
/// ```
///
/// Routes match a request's method and path; a route declared with a query matches only that
/// query. The host is ignored, so one declaration serves any base URL (the in-memory
/// ``defaultBaseURL`` or a socket's `http://127.0.0.1:<port>`). A request no route matches is
/// answered `404` with a problem document naming it, and logged like any other.
///
/// Each route is declared once: a second declaration of one method and path (a second
/// ``resource(_:_:status:headers:)`` at a path, a ``collection(_:items:pageSize:rel:properties:)``
/// where a `GET` route is declared) is a mistake in the test, and the API stops answering:
/// ``serve()`` throws, and every request fails with a ``StubAPIError`` naming the route
/// (`route GET /orders is declared twice`), in memory, or is answered `500` on a socket that
/// was already serving. For an answer that changes during a test, declare a
/// ``handle(_:_:with:)`` route whose handler reads the test's own state.
public final class StubAPI: Sendable {
    /// The base URL the in-memory requester is usually given: any host works.
    public static let defaultBaseURL = URL(string: "https://api.example.test")!

    private let state = LockedValue(State())

    private struct State {
        var routes: [RouteKey: Route] = [:]
        var collections: [String: Collection] = [:]
        var behaviours: [String: Behaviour] = [:]
        var log: [StubRequest] = []
        var fixtureDirectory: URL?
        /// The first route declared twice: the API answers no request while it is set.
        var duplicate: StubAPIError?

        /// Records `route` as declared, noting it when it already was.
        mutating func declare(_ route: RouteKey) {
            let taken = routes[route] != nil || (route.method == .get && collections[route.path] != nil)
            if taken, duplicate == nil { duplicate = StubAPIError(route: "\(route.method.rawValue) \(route.path)") }
        }
    }

    private struct RouteKey: Hashable {
        let method: RequestMethod
        let path: String
    }

    private enum Route {
        case response(StubResponse)
        case handler(@Sendable (StubRequest) -> StubResponse)
    }

    private struct Collection {
        let items: [StubResource]
        let pageSize: Int
        let rel: String
        let properties: JSONObject
    }

    /// Latency and faults of one path (any method).
    private struct Behaviour {
        var latency: Duration?
        var faults: [(fault: StubFault, remaining: Int?, method: RequestMethod?)] = []
    }

    /// An API with no routes.
    public init() {}

    // MARK: Declaring the API

    /// Serves `resource` at `path` to `GET` and `HEAD`, its `self` link set to `path` unless
    /// it has one.
    ///
    /// - Returns: The resource with its `self` link, to embed or list elsewhere.
    @discardableResult
    public func resource(
        _ path: String, _ resource: StubResource, status: Int = 200, headers: HeaderFields = [:]
    ) -> StubResource {
        var served = resource
        served.selfLink = resource.selfLink ?? path
        respond(to: .get, path, with: .json(served.json(), status: status, headers: headers))
        return served
    }

    /// Serves a paginated collection at `path`: page `n` of `size` items at
    /// `path?page=n&size=size` (pages from 0; `path` alone is the first page), each with
    /// `self`, `first`, `last` and (where they exist) `next` and `prev` links, Spring-style
    /// `page` metadata, and its items embedded under `rel`. A page past the last is `404`.
    ///
    /// Each item keeps its own `self` link; serve the items themselves with
    /// ``resource(_:_:status:headers:)`` when a client follows them.
    public func collection(
        _ path: String, items: [StubResource], pageSize: Int = 20, rel: String = "item",
        properties: JSONObject = [:]
    ) {
        let collection = Collection(items: items, pageSize: max(1, pageSize), rel: rel, properties: properties)
        state.withLock { state in
            state.declare(RouteKey(method: .get, path: path))
            state.collections[path] = collection
        }
    }

    /// Answers `method` requests to `path` with a fixed response (an action's `201`, say).
    public func respond(to method: RequestMethod, _ path: String, with response: StubResponse) {
        state.withLock { state in
            let route = RouteKey(method: method, path: path)
            state.declare(route)
            state.routes[route] = .response(response)
        }
    }

    /// Answers `method` requests to `path` with what `handler` returns for each: for
    /// actions and forms whose answer depends on the request.
    public func handle(
        _ method: RequestMethod, _ path: String, with handler: @escaping @Sendable (StubRequest) -> StubResponse
    ) {
        state.withLock { state in
            let route = RouteKey(method: method, path: path)
            state.declare(route)
            state.routes[route] = .handler(handler)
        }
    }

    // MARK: Latency and faults

    /// Delays every answer at `path` by `latency`. A path with a query applies to that query
    /// only; one without to every query (as for ``fault(_:_:method:times:)``).
    public func latency(_ path: String, _ latency: Duration) {
        state.withLock { $0.behaviours[path, default: Behaviour()].latency = latency }
    }

    /// Answers the next `times` requests to `path` (every one when `nil`), of `method` or of
    /// any method, with `fault` instead of the route's answer. Faults declared for one path
    /// apply in order: the first with requests left wins. A path with a query applies to that
    /// query only; one without to every query, unless the request's own path and query have
    /// faults or latency declared.
    ///
    /// ```swift
    /// api.fault("/contacts/1", .retryAfter(seconds: 1), times: 1)   // then answers normally
    /// ```
    public func fault(_ path: String, _ fault: StubFault, method: RequestMethod? = nil, times: Int? = nil) {
        state.withLock { $0.behaviours[path, default: Behaviour()].faults.append((fault, times, method)) }
    }

    /// Removes every fault and latency.
    public func clearFaults() {
        state.withLock { $0.behaviours = [:] }
    }

    // MARK: The request log

    /// Every request received, in order of arrival.
    public var requests: [StubRequest] { state.get().log }

    /// Every request as `"METHOD /path?query"`, in order of arrival: what a traversal's
    /// assertion reads best.
    public var requestLines: [String] { requests.map(\.line) }

    /// The requests to `path`, of `method` or of any method. A path with a query matches that
    /// query only; one without matches every query (`/team` counts `/team?page=1&size=2`).
    public func requests(to path: String, method: RequestMethod? = nil) -> [StubRequest] {
        requests.filter { $0.path == path || ($0.pathWithoutQuery == path && !path.contains("?")) }
            .filter { method == nil || $0.method == method }
    }

    /// Empties the log.
    public func resetLog() {
        state.withLock { $0.log = [] }
    }

    // MARK: Recording fixtures

    /// Writes each successful `GET` answer from now on to `directory` in ``FileRequester``'s
    /// layout (`/contacts/1` → `contacts/1.json`, `/contacts?page=1` →
    /// `contacts@page=1.json`, `/` → `index.json`), so a later test can run offline on
    /// `FileRequester(directory:)`. `nil` stops recording.
    public func recordFixtures(into directory: URL?) {
        state.withLock { $0.fixtureDirectory = directory }
    }

    // MARK: Serving

    /// A requester answering from this API in memory: no sockets, fast, for unit tests.
    public var requester: StubRequester { StubRequester(api: self) }

    /// Serves this API over HTTP/1.1 on `127.0.0.1` and a free port, so code under test can
    /// use a real transport (`CurlRequester`, `URLSessionRequester`). The server stops when
    /// the returned value is released (or ``StubServer/stop()`` is called).
    ///
    /// Not on watchOS, where an app cannot listen on a socket: use ``requester`` there.
    ///
    /// - Throws: ``StubServerError`` when no socket could be bound, or when a route is declared
    ///   twice (naming it, as ``StubAPIError`` does).
    @available(watchOS, unavailable, message: "watchOS apps cannot listen on a socket; use StubAPI.requester")
    public func serve() throws(StubServerError) -> StubServer {
        if let duplicate = declarationError { throw StubServerError(description: duplicate.description) }
        return try StubServer(api: self)
    }

    /// The first route declared twice, when one is: the API answers no request then.
    var declarationError: StubAPIError? { state.get().duplicate }

    // MARK: Answering

    /// What the API does with one request: the answer, after how long, or a broken
    /// connection.
    struct Outcome {
        enum Kind {
            case response(StubResponse)
            case reset
            case truncated(StubResponse)
            /// The API's declarations are wrong: no route answers.
            case misdeclared(StubAPIError)
        }
        let kind: Kind
        let latency: Duration?
    }

    /// Logs `request` and decides its answer; a request to an API with a route declared twice
    /// is neither logged nor answered.
    func answer(_ request: StubRequest) -> Outcome {
        let answering = state.withLock {
            state -> (Route?, Collection?, (latency: Duration?, fault: StubFault?), URL?)? in
            guard state.duplicate == nil else { return nil }
            state.log.append(request)
            let route =
                state.routes[RouteKey(method: request.method, path: request.path)]
                ?? (request.method == .head ? state.routes[RouteKey(method: .get, path: request.path)] : nil)
            let collection = state.collections[request.pathWithoutQuery]
            let key = state.behaviours[request.path] != nil ? request.path : request.pathWithoutQuery
            var applied: (latency: Duration?, fault: StubFault?) = (state.behaviours[key]?.latency, nil)
            if let faults = state.behaviours[key]?.faults,
                let index = faults.firstIndex(where: {
                    ($0.remaining ?? 1) > 0 && ($0.method == nil || $0.method == request.method)
                })
            {
                applied.fault = faults[index].fault
                if let remaining = faults[index].remaining {
                    state.behaviours[key]?.faults[index].remaining = remaining - 1
                }
            }
            return (route, collection, applied, state.fixtureDirectory)
        }
        guard let answering else {
            return Outcome(kind: .misdeclared(declarationError ?? StubAPIError(route: request.line)), latency: nil)
        }
        let (route, collection, behaviour, directory) = answering
        var response: StubResponse
        switch route {
        case .response(let fixed): response = fixed
        case .handler(let handler): response = handler(request)
        case nil:
            if let collection, request.method == .get || request.method == .head {
                response = page(of: collection, at: request)
            } else {
                response = .problem(status: 404, detail: "no route for \(request.line)")
            }
        }
        if request.method == .head { response.body = Data() }
        var latency = behaviour.latency
        switch behaviour.fault {
        case nil: break
        case .status(let status, let headers, let body):
            response = StubResponse(status: status, headers: headers, body: body)
        case .retryAfter(let status, let seconds):
            response = .problem(status: status, detail: "try again later")
            response.headers["Retry-After"] = "\(seconds)"
        case .delay(let delay):
            latency = (latency ?? .zero) + delay
        case .reset:
            return Outcome(kind: .reset, latency: latency)
        case .truncatedBody:
            return Outcome(kind: .truncated(response), latency: latency)
        }
        if let directory, request.method == .get, (200..<300).contains(response.status) {
            record(response, for: request, in: directory)
        }
        return Outcome(kind: .response(response), latency: latency)
    }

    /// One page of a collection, or `404` past the last.
    private func page(of collection: Collection, at request: StubRequest) -> StubResponse {
        let query = request.queryItems
        let size = query["size"].flatMap(Int.init).map { max(1, $0) } ?? collection.pageSize
        let number = query["page"].flatMap(Int.init) ?? 0
        let pages = max(1, (collection.items.count + size - 1) / size)
        guard number >= 0, number < pages else {
            return .problem(status: 404, detail: "page \(number) of \(request.pathWithoutQuery) does not exist")
        }
        let path = request.pathWithoutQuery
        func href(_ page: Int) -> JSONValue { ["href": .string("\(path)?page=\(page)&size=\(size)")] }
        var links: JSONObject = ["self": href(number), "first": href(0), "last": href(pages - 1)]
        if number + 1 < pages { links["next"] = href(number + 1) }
        if number > 0 { links["prev"] = href(number - 1) }
        let items = collection.items.dropFirst(number * size).prefix(size).map { $0.json() }
        var object: JSONObject = ["_links": .object(links)]
        for (key, value) in collection.properties.members { object[key] = value }
        object["_embedded"] = [collection.rel: .array(Array(items))]
        object["page"] = [
            "size": .int(size), "totalElements": .int(collection.items.count), "totalPages": .int(pages),
            "number": .int(number),
        ]
        return .json(.object(object))
    }

    /// Writes a response body where ``FileRequester`` looks for it. A failure to write is a
    /// test set-up error, reported on standard error rather than changing the answer.
    private func record(_ response: StubResponse, for request: StubRequest, in directory: URL) {
        guard let url = URL(string: request.path, relativeTo: Self.defaultBaseURL)?.absoluteURL,
            let file = FileRequester(directory: directory).candidates(for: url).first
        else { return }
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try response.body.write(to: file)
        } catch {
            FileHandle.standardError.write(Data("StubAPI: could not record \(file.path): \(error)\n".utf8))
        }
    }
}

/// One request a ``StubAPI`` received.
public struct StubRequest: Sendable, Hashable {
    /// `GET`, `POST`, ...
    public let method: RequestMethod
    /// The path with its query, as sent (`/contacts?page=1&size=20`).
    public let path: String
    /// The header fields as sent.
    public let headers: HeaderFields
    /// The body, empty when there was none.
    public let body: Data

    /// A request as the API sees it.
    public init(method: RequestMethod, path: String, headers: HeaderFields = [:], body: Data = Data()) {
        self.method = method
        self.path = path.isEmpty ? "/" : path
        self.headers = headers
        self.body = body
    }

    /// `"METHOD /path?query"`.
    public var line: String { "\(method.rawValue) \(path)" }

    /// The path without its query.
    public var pathWithoutQuery: String {
        path.firstIndex(of: "?").map { String(path[..<$0]) } ?? path
    }

    /// The query's items by name (the last of a repeated name wins), percent-decoded.
    public var queryItems: [String: String] {
        let items = URLComponents(string: path)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
    }

    /// The body parsed as JSON, `nil` when it is not JSON.
    public var json: JSONValue? { try? JSONValue(parsing: body) }
}

/// An answer of a ``StubAPI`` route.
public struct StubResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The header fields; `Content-Length` is added when served.
    public var headers: HeaderFields
    /// The body.
    public var body: Data

    /// A response with these parts.
    public init(status: Int = 200, headers: HeaderFields = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A HAL document (`application/hal+json`).
    public static func json(_ value: JSONValue, status: Int = 200, headers: HeaderFields = [:]) -> StubResponse {
        var all: HeaderFields = ["Content-Type": "application/hal+json"]
        all.merge(headers)
        return StubResponse(status: status, headers: all, body: value.serialized())
    }

    /// A problem document (`application/problem+json`, RFC 9457) with `status` and `detail`.
    public static func problem(status: Int, detail: String) -> StubResponse {
        let body: JSONValue = ["status": .int(status), "detail": .string(detail)]
        return StubResponse(
            status: status, headers: ["Content-Type": "application/problem+json"], body: body.serialized())
    }
}

/// What a route does instead of answering normally.
public enum StubFault: Sendable, Hashable {
    /// Answers with this status (and headers and body) instead.
    case status(Int, headers: HeaderFields = [:], body: Data = Data())
    /// Answers `status` (`503` or `429`) with `Retry-After: seconds`.
    case retryAfter(status: Int = 503, seconds: Int)
    /// Answers normally, `delay` later (on top of the route's latency).
    case delay(Duration)
    /// Drops the connection without an answer: a TCP reset on the socket, a
    /// ``TransportError/Code/connectionReset`` in memory.
    case reset
    /// Sends the headers and half the body, then closes the connection: a
    /// ``TransportError/Code/connectionReset`` in memory.
    case truncatedBody
}

/// Answers requests from a ``StubAPI`` in memory: no sockets, no threads. Cancelling the
/// calling task ends a route's latency at once with `CancellationError`.
public struct StubRequester: ResourceRequester, Sendable {
    /// The API answering.
    public let api: StubAPI

    /// A requester for `api` (also ``StubAPI/requester``).
    public init(api: StubAPI) {
        self.api = api
    }

    /// `false`: a route's latency can outlast a request's timeout, so the engine holds each
    /// attempt to it, as it would a real server.
    public var enforcesRequestTimeout: Bool { false }

    /// The API's answer to `request`, after the route's latency.
    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        try Task.checkCancellation()
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: true)
        var path = components?.percentEncodedPath ?? request.url.path
        if let query = components?.percentEncodedQuery { path += "?" + query }
        let stubRequest = StubRequest(
            method: request.method, path: path, headers: request.headers, body: request.body ?? Data())
        let outcome = api.answer(stubRequest)
        if let latency = outcome.latency, latency > .zero { try await Task.sleep(for: latency) }
        switch outcome.kind {
        case .response(let response):
            return ResourceResponse(
                status: response.status, headers: response.headers, url: request.url, body: response.body)
        case .reset:
            throw TransportError(
                code: .connectionReset, url: request.url, detail: "the stub route reset the connection")
        case .truncated:
            throw TransportError(
                code: .connectionReset, url: request.url, detail: "the stub route closed the connection mid-body")
        case .misdeclared(let error):
            throw error
        }
    }
}

// Tests written against 0.2.0 pass it as `any RequesterInterface`.
extension StubRequester: RequesterInterface {}

/// A mistake in a ``StubAPI``'s declarations: a route (one method and path) declared twice.
/// The API's requests fail with it (in memory), and ``StubAPI/serve()`` throws its description.
///
/// ```swift
/// let api = StubAPI()
/// api.resource("/orders", StubResource(["n": 1]))
/// api.resource("/orders", StubResource(["n": 2]))   // a mistake: the test meant another path
/// // The first request fails: "route GET /orders is declared twice ..."
/// ```
public struct StubAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The route declared twice, as `"METHOD /path"` (`"GET /orders"`).
    public let route: String

    /// A route declared twice.
    init(route: String) {
        self.route = route
    }

    /// `route GET /orders is declared twice`, and what to do instead.
    public var description: String {
        "route \(route) is declared twice in this StubAPI (declare each route once; for an answer that "
            + "changes during a test, use handle(_:_:with:) with the test's own state)"
    }
}
