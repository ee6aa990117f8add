import Foundation
import Halley
import Metrics
import NIOConcurrencyHelpers
import Tracing

/// Traces Halley calls with swift-distributed-tracing and measures them with swift-metrics.
///
/// - ``withCallSpan(_:options:isolation:_:)`` runs one call (a traversal, an action, a
///   follow chain) inside a span of its own, with an observer that adds the call's events to
///   that span (embedded resources used, cache hits, retries, missing relations) and records
///   the metrics.
/// - ``requester(wrapping:)`` wraps the requester so that every attempt that goes on the wire
///   gets a client span, a child of the call's, named and attributed by the OpenTelemetry HTTP
///   client conventions, and carries the span's context in its headers (`traceparent` with a
///   W3C propagator such as swift-otel's).
///
/// ```swift
/// let telemetry = HalleyTelemetry()   // the bootstrapped tracer and metrics factory
/// let manager = ResourceManager(requester: telemetry.requester(wrapping: AsyncHTTPClientRequester()))
/// let shop = try await telemetry.withCallSpan("load shop") { options in
///     try await manager.resource(from: shopURL, includes: ["[orders].customer"], options: options)
/// }
/// ```
///
/// Attempt spans carry `http.request.method`, `url.full` (without user info),
/// `server.address`, `server.port`, `http.response.status_code`,
/// `http.response.body.size`, `http.request.resend_count` (from the second attempt on),
/// `error.type` (the status code from 400 on, or the failure's kind) and
/// `halley.include_path` (`(root)` for the call's root). The call span carries
/// `halley.requests`, `halley.retries`, `halley.cache_hits`, `halley.embedded_resources`
/// and `error.type` when the call fails.
///
/// Metrics: the timer `http.client.request.duration` and the counter `halley.requests`
/// (dimensions `http.request.method` and `http.response.status_class`: `2xx` … `5xx`, or
/// `error` without a response), the counters `halley.retries`, `halley.cache.hits`
/// (dimension `halley.cache.result`: `fresh` or `revalidated`) and
/// `halley.response.body.size` (bytes), and per call the recorders `halley.call.requests`
/// and `halley.call.embedded_resources`: how large a traversal was.
public struct HalleyTelemetry: Sendable {
    /// Starts the spans and injects their context into requests.
    public let tracer: any Tracer
    /// Makes the metrics.
    public let metricsFactory: any MetricsFactory

    /// Telemetry through `tracer` and `metricsFactory`: by default the ones bootstrapped in
    /// `InstrumentationSystem` and `MetricsSystem` (no-ops until bootstrapped).
    public init(
        tracer: any Tracer = InstrumentationSystem.tracer, metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.tracer = tracer
        self.metricsFactory = metricsFactory
    }

    /// `base`, with a client span per attempt and the span's context in each request's headers.
    public func requester<Base: RequesterInterface & Sendable>(wrapping base: Base) -> TracingRequester<Base> {
        TracingRequester(base: base, tracer: tracer)
    }

    /// Runs `call` inside a span named `name` (a child of the task's current span, if any),
    /// passing it `options` with an observer that records the call's events on the span and
    /// in the metrics (after any observer `options` already has). The span ends when `call`
    /// returns or throws; a thrown error is recorded on it.
    public func withCallSpan<Value>(
        _ name: String, options: CallOptions = CallOptions(), isolation: isolated (any Actor)? = #isolation,
        _ call: (CallOptions) async throws -> Value
    ) async throws -> Value {
        let span = tracer.startSpan(name, ofKind: .internal)
        let record = CallRecord(metrics: CallMetrics(factory: metricsFactory), span: span)
        var options = options
        let previous = options.observer
        options.observer = { event in
            previous?(event)
            record.observe(event)
        }
        do {
            let value = try await InstrumentationContext.$current.withValue(span.context) { try await call(options) }
            record.finish(error: nil)
            return value
        } catch {
            record.finish(error: error)
            throw error
        }
    }
}

/// A requester that traces every attempt it sends through `base`: one client span each,
/// named by the method (the OpenTelemetry HTTP client convention when no route template is
/// known), a child of the task's current span (the call's, under
/// ``HalleyTelemetry/withCallSpan(_:options:isolation:_:)``).
///
/// The span's context goes into the request's headers through the tracer's propagator
/// (`traceparent` and `tracestate` for W3C). A trace header is not a credential, so it goes to
/// every origin, unless the caller scopes it like one: list `traceparent` among the
/// credential headers (`credentialHeaders` in the configuration or the call's options) and
/// it goes only to trusted origins, and is dropped on redirects that leave them, like
/// `Authorization`.
public struct TracingRequester<Base: RequesterInterface & Sendable>: RequesterInterface, Sendable {
    /// Sends the requests.
    public let base: Base
    /// Starts the spans.
    public let tracer: any Tracer

    /// Traces the attempts `base` sends through `tracer`.
    public init(base: Base, tracer: any Tracer = InstrumentationSystem.tracer) {
        self.base = base
        self.tracer = tracer
    }

    /// The base requester's schemes.
    public var supportedSchemes: Set<String> { base.supportedSchemes }
    /// Whether the base requester ends its attempts at ``ResourceRequest/timeout`` itself.
    public var enforcesRequestTimeout: Bool { base.enforcesRequestTimeout }

    /// Sends `request` through the base requester inside a client span.
    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        let span = tracer.startSpan(request.method.rawValue, ofKind: .client)
        defer { span.end() }
        span.attributes["http.request.method"] = request.method.rawValue
        span.attributes["url.full"] = fullURL(request.url)
        if let host = request.url.host { span.attributes["server.address"] = host }
        if let port = request.url.port ?? Self.defaultPort(of: request.url) { span.attributes["server.port"] = port }
        span.attributes["halley.include_path"] = request.includePath ?? "(root)"
        if request.attempt > 1 { span.attributes["http.request.resend_count"] = request.attempt - 1 }
        var request = request
        var fields = HeaderFields()
        tracer.inject(span.context, into: &fields, using: HeadersInjector())
        let trusted = request.trustedOrigins.isEmpty || request.trustedOrigins.contains(Origin(request.url))
        for field in fields where trusted || !request.credentialHeaders.contains(field.name.lowercased()) {
            request.headers[field.name] = field.value
        }
        let response: ResourceResponse
        do {
            response = try await base.response(for: request)
        } catch {
            span.attributes["error.type"] = errorType(of: error)
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
        span.attributes["http.response.status_code"] = response.status
        span.attributes["http.response.body.size"] = response.body.count
        if response.status >= 400 {
            // The convention: a client span fails on 4xx and 5xx, with the code as its type.
            span.attributes["error.type"] = String(response.status)
            span.setStatus(SpanStatus(code: .error))
        }
        return response
    }

    private static func defaultPort(of url: URL) -> Int? {
        switch url.scheme?.lowercased() {
        case "http": 80
        case "https": 443
        default: nil
        }
    }
}

/// Writes propagation fields into Halley's header fields.
private struct HeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HeaderFields) {
        carrier[key] = value
    }
}

/// `url.full`, which must not carry credentials: user and password are removed.
func fullURL(_ url: URL) -> String {
    guard url.user != nil || url.password != nil,
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    else { return url.absoluteString }
    components.user = nil
    components.password = nil
    return components.string ?? url.absoluteString
}

/// `error.type`, low in cardinality as the convention asks: Halley's code for its errors (with
/// the transport's kind when there is one), the type's name for anything else.
func errorType(of error: any Error) -> String {
    if let error = error as? HalleyError {
        if let transport = error.transportError { return transport.code.rawValue }
        if let status = error.httpError?.status { return String(status) }
        return error.code.rawValue
    }
    if let error = error as? TransportError { return error.code.rawValue }
    if error is CancellationError { return "cancelled" }
    return String(describing: type(of: error))
}

/// One call's span and counts, fed by its observer from many tasks at once.
private final class CallRecord: Sendable {
    private struct Counts {
        var requests = 0
        var retries = 0
        var cacheHits = 0
        var embeddedResources = 0
    }

    private let metrics: CallMetrics
    private let span: any Span
    private let counts = NIOLockedValueBox(Counts())

    init(metrics: CallMetrics, span: any Span) {
        self.metrics = metrics
        self.span = span
    }

    func observe(_ event: HalleyEvent) {
        metrics.record(event)
        counts.withLockedValue { counts in
            switch event {
            case .requestStarted: counts.requests += 1
            case .retrying: counts.retries += 1
            case .cacheHit, .cacheRevalidated: counts.cacheHits += 1
            case .embeddedUsed(_, _, let count): counts.embeddedResources += count
            default: break
            }
        }
        // Requests have spans of their own (the requester's); the rest are moments of the call.
        switch event {
        case .requestStarted, .requestFinished: return
        default:
            let name = "halley." + TraversalEventLogger.name(of: event)
            span.addEvent(SpanEvent(name: name, attributes: attributes(of: event)))
        }
    }

    func finish(error: (any Error)?) {
        let counts = counts.withLockedValue { $0 }
        span.attributes["halley.requests"] = counts.requests
        span.attributes["halley.retries"] = counts.retries
        span.attributes["halley.cache_hits"] = counts.cacheHits
        span.attributes["halley.embedded_resources"] = counts.embeddedResources
        metrics.finish(requests: counts.requests, embeddedResources: counts.embeddedResources)
        if let error {
            span.attributes["error.type"] = errorType(of: error)
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    /// The event's details, named as ``TraversalEventLogger`` names them.
    private func attributes(of event: HalleyEvent) -> SpanAttributes {
        var attributes = SpanAttributes()
        func path(_ includePath: String?) { attributes["halley.include_path"] = includePath ?? "(root)" }
        switch event {
        case .embeddedUsed(let includePath, let rel, let count):
            path(includePath)
            attributes["halley.rel"] = rel.rawValue
            attributes["halley.count"] = count
        case .relationMissing(let includePath, let rel, let url):
            path(includePath)
            attributes["halley.rel"] = rel.rawValue
            if let url { attributes["url.full"] = fullURL(url) }
        case .retrying(let url, let attempt, _, let reason):
            attributes["url.full"] = fullURL(url)
            attributes["halley.attempt"] = attempt
            attributes["halley.reason"] = reason
        case .deprecatedLinkFollowed(let includePath, let url, let deprecation):
            path(includePath)
            attributes["url.full"] = fullURL(url)
            attributes["halley.deprecation"] = deprecation
        case .cacheHit(let url), .cacheRevalidated(let url), .credentialsRefreshStarted(let url):
            attributes["url.full"] = fullURL(url)
        case .fallbackUsed(let url, let error):
            attributes["url.full"] = fullURL(url)
            attributes["error.type"] = errorType(of: error)
        case .credentialsRefreshFinished(let url, let error):
            attributes["url.full"] = fullURL(url)
            if let error { attributes["error.message"] = error }
        case .resultKeyTaken(let includePath, let key):
            path(includePath)
            attributes["halley.key"] = key
        default:
            break
        }
        return attributes
    }
}

/// The metrics of one call's events.
private struct CallMetrics: Sendable {
    let factory: any MetricsFactory

    func record(_ event: HalleyEvent) {
        switch event {
        case .requestFinished(let record):
            let dimensions = [
                ("http.request.method", record.method.rawValue),
                ("http.response.status_class", record.status.map { "\($0 / 100)xx" } ?? "error"),
            ]
            if let duration = record.duration {
                Timer(label: "http.client.request.duration", dimensions: dimensions, factory: factory)
                    .record(duration: duration)
            }
            Counter(label: "halley.requests", dimensions: dimensions, factory: factory).increment()
            if let bytes = record.bytes {
                Counter(label: "halley.response.body.size", factory: factory).increment(by: bytes)
            }
        case .retrying:
            Counter(label: "halley.retries", factory: factory).increment()
        case .cacheHit:
            Counter(label: "halley.cache.hits", dimensions: [("halley.cache.result", "fresh")], factory: factory)
                .increment()
        case .cacheRevalidated:
            Counter(label: "halley.cache.hits", dimensions: [("halley.cache.result", "revalidated")], factory: factory)
                .increment()
        default:
            break
        }
    }

    func finish(requests: Int, embeddedResources: Int) {
        Recorder(label: "halley.call.requests", factory: factory).record(requests)
        Recorder(label: "halley.call.embedded_resources", factory: factory).record(embeddedResources)
    }
}
