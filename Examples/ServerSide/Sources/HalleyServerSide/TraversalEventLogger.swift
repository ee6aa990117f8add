import Foundation
import Halley
import Logging

/// Writes Halley's `HalleyEvent`s to a swift-log `Logger`: one record per event, at a
/// level that says how much it matters, with the details as metadata.
///
/// | Event | Level |
/// | --- | --- |
/// | request started, embedded resource used | `trace` |
/// | request finished with a response below 400 | `requestLevel` (`debug` by default) |
/// | request finished with 400 or more, or without a response | `info` |
/// | cache hit, cache revalidated | `debug` |
/// | credential refresh started or succeeded | `info` |
/// | relation missing, retrying, result key taken | `notice` |
/// | deprecated link followed, fallback used, credential refresh failed | `warning` |
/// | any event added to Halley later | `debug` |
///
/// A failed request is `info`, not `error`: the engine may retry it or the call may allow
/// partial results; the error the call throws is yours to log.
///
/// Metadata keys: `halley.event` (the case name) on every record; for requests
/// `http.request.method`, `url.full`, `http.response.status_code`,
/// `http.response.body.size`, `halley.duration_ms`, `halley.attempt`, `halley.include_path`
/// (`(root)` for the call's root) and `error.message`; for the other events `url.full`,
/// `halley.include_path`, `halley.rel`, `halley.deprecation`, `halley.count`,
/// `halley.delay_ms`, `halley.reason` and `halley.key` where they apply.
///
/// Give each incoming request its own logger (with its request id) and the call its own
/// observer:
///
/// ```swift
/// var logger = Logger(label: "profile-service.upstream")
/// logger[metadataKey: "request.id"] = "\(requestID)"
/// var options = CallOptions()
/// options.observer = TraversalEventLogger(logger: logger).observer
/// let profile = try await manager.resource(from: url, includes: ["[contacts]"], options: options)
/// ```
public struct TraversalEventLogger: Sendable {
    /// Where records go.
    public var logger: Logger
    /// The level of a request that finished with a status below 400.
    public var requestLevel: Logger.Level

    /// Creates an observer writing to `logger`.
    public init(logger: Logger, requestLevel: Logger.Level = .debug) {
        self.logger = logger
        self.requestLevel = requestLevel
    }

    /// The observer to put in `CallOptions.observer` or the manager's configuration.
    public var observer: TraversalObserver {
        let logger = self
        return { event in logger.log(event) }
    }

    /// Writes one event.
    public func log(_ event: HalleyEvent) {
        let level = level(of: event)
        // Built only when the record will be written: observers run on every request.
        guard logger.logLevel <= level else { return }
        let (message, metadata) = Self.record(of: event)
        logger.log(level: level, "\(message)", metadata: metadata)
    }

    /// The level `event` is written at.
    public func level(of event: HalleyEvent) -> Logger.Level {
        switch event {
        case .requestStarted, .embeddedUsed:
            return .trace
        case .requestFinished(let record):
            let failed = record.error != nil || (record.status ?? 0) >= 400
            return failed ? max(.info, requestLevel) : requestLevel
        case .cacheHit, .cacheRevalidated, .stateUsed:
            return .debug
        case .credentialsRefreshStarted:
            return .info
        case .credentialsRefreshFinished(_, let error):
            return error == nil ? .info : .warning
        case .relationMissing, .retrying, .resultKeyTaken, .responseHeaderIgnored:
            return .notice
        case .deprecatedLinkFollowed, .fallbackUsed:
            return .warning
        @unknown default:
            return .debug
        }
    }

    /// The message and metadata of one event.
    static func record(of event: HalleyEvent) -> (String, Logger.Metadata) {
        var metadata: Logger.Metadata = [:]
        func put(_ key: String, _ value: (any CustomStringConvertible & Sendable)?) {
            if let value { metadata[key] = .stringConvertible(value) }
        }
        func path(_ includePath: String?) { put("halley.include_path", includePath ?? "(root)") }
        put("halley.event", name(of: event))
        let message: String
        switch event {
        case .requestStarted(let record):
            message = "request started"
            request(record, into: &metadata)
        case .requestFinished(let record):
            message = record.error == nil ? "request finished" : "request failed"
            request(record, into: &metadata)
        case .embeddedUsed(let includePath, let rel, let count):
            message = "used embedded resources"
            path(includePath)
            put("halley.rel", rel.rawValue)
            put("halley.count", count)
        case .deprecatedLinkFollowed(let includePath, let url, let deprecation):
            message = "followed a deprecated link"
            path(includePath)
            put("url.full", url.absoluteString)
            put("halley.deprecation", deprecation)
        case .relationMissing(let includePath, let rel, let url):
            message = "relation missing; left out of the result"
            path(includePath)
            put("halley.rel", rel.rawValue)
            put("url.full", url?.absoluteString)
        case .retrying(let url, let attempt, let delay, let reason):
            message = "retrying"
            put("url.full", url.absoluteString)
            put("halley.attempt", attempt)
            put("halley.delay_ms", milliseconds(delay))
            put("halley.reason", reason)
        case .cacheHit(let url):
            message = "served from the cache"
            put("url.full", url.absoluteString)
        case .cacheRevalidated(let url):
            message = "cached response revalidated"
            put("url.full", url.absoluteString)
        case .fallbackUsed(let url, let error):
            message = "used the fallback response"
            put("url.full", url.absoluteString)
            put("error.message", error.message)
        case .credentialsRefreshStarted(let url):
            message = "refreshing credentials"
            put("url.full", url.absoluteString)
        case .credentialsRefreshFinished(let url, let error):
            message = error == nil ? "credentials refreshed" : "credential refresh failed"
            put("url.full", url.absoluteString)
            put("error.message", error)
        case .resultKeyTaken(let includePath, let key):
            message = "result key is an attribute; relationship placed under _embedded"
            path(includePath)
            put("halley.key", key)
        case .stateUsed(let url):
            message = "served from the resource store"
            put("url.full", url.absoluteString)
        case .responseHeaderIgnored(let url, let field, let value, let reason):
            message = "response header ignored: \(reason)"
            put("url.full", url.absoluteString)
            put("http.response.header.name", field)
            put("http.response.header.value", value)
        @unknown default:
            message = event.description
        }
        return (message, metadata)
    }

    /// The case's name, `requestFinished` for `.requestFinished(_:)`: also for cases added to
    /// Halley after this file was written.
    static func name(of event: HalleyEvent) -> String {
        Mirror(reflecting: event).children.first?.label ?? String(describing: event)
    }

    private static func request(_ record: RequestRecord, into metadata: inout Logger.Metadata) {
        metadata["http.request.method"] = .string(record.method.rawValue)
        metadata["url.full"] = .string(record.url.absoluteString)
        metadata["halley.include_path"] = .string(record.includePath ?? "(root)")
        metadata["halley.attempt"] = .stringConvertible(record.attempt)
        if let status = record.status { metadata["http.response.status_code"] = .stringConvertible(status) }
        if let bytes = record.bytes { metadata["http.response.body.size"] = .stringConvertible(bytes) }
        if let duration = record.duration { metadata["halley.duration_ms"] = .string(milliseconds(duration)) }
        if let error = record.error { metadata["error.message"] = .string(error) }
    }

    /// `12.34`: milliseconds with two decimals.
    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) * 1_000 + Double(attoseconds) / 1e15
        return String(format: "%.2f", value)
    }
}
