import Foundation
import HalleyHAL
import HalleyTransport

/// Something the engine did, reported to observers as it happens: the hook for tracing,
/// logging (`os.Logger`, swift-log) and metrics. Requests, traversals, actions and forms all
/// report through it.
///
/// ```swift
/// var options = CallOptions()
/// options.observer = { event in
///     if case .requestFinished(let record) = event { print(record.url, record.status ?? 0) }
/// }
/// ```
///
/// New cases are added as the library learns to report more, so a `switch` over events
/// should end with `default:` (the enum is not frozen; `@unknown default` is not needed for a
/// package built from source, and `default` keeps new cases from breaking your build).
public enum HalleyEvent: Sendable {
    /// A request was sent.
    case requestStarted(RequestRecord)
    /// A request completed (any status) or failed (``RequestRecord/error`` is set).
    case requestFinished(RequestRecord)
    /// An included relationship was satisfied from `_embedded`, with no request.
    case embeddedUsed(includePath: String, rel: LinkRelation, count: Int)
    /// A link with a HAL `deprecation` property was followed (HAL draft, 5.4: clients
    /// SHOULD warn).
    case deprecatedLinkFollowed(includePath: String?, url: URL, deprecation: String)
    /// An included relation is absent from the resource at `url`; its key is left out of the
    /// result. With ``CallOptions/strictIncludes`` the call fails instead, and this is not sent.
    case relationMissing(includePath: String, rel: LinkRelation, url: URL?)
    /// A request failed and will be tried again after `delay`.
    case retrying(url: URL, attempt: Int, delay: Duration, reason: String)
    /// A fresh cached response was used; no request was sent.
    case cacheHit(url: URL)
    /// A stale cached response was confirmed by a `304`.
    case cacheRevalidated(url: URL)
    /// A request failed and the fallback's response was used instead.
    case fallbackUsed(url: URL, error: HalleyError)
    /// A trusted origin answered `401` and ``ResourceManager/Configuration/refreshCredentials``
    /// started; requests rejected meanwhile wait for it.
    case credentialsRefreshStarted(url: URL)
    /// The credential refresh ended; `error` describes why it failed, `nil` on success.
    case credentialsRefreshFinished(url: URL, error: String?)
    /// The result key of a relationship is already an attribute of its parent; the attribute
    /// is kept and the relationship lands in `_embedded` under that key.
    case resultKeyTaken(includePath: String, key: String)
    /// A fresh state of the manager's ``ResourceStore`` was used; no request was sent.
    case stateUsed(url: URL)
    /// A URL in a response header (`Location`, `Content-Location`, a `Link` with
    /// `rel="invalidates"`) was not used: `reason` says why (not a URL reference, or an origin
    /// the call does not trust). The response itself is still the answer.
    case responseHeaderIgnored(url: URL, field: String, value: String, reason: String)
}

extension HalleyEvent: CustomStringConvertible {
    /// One line for logs, e.g. `request finished: GET https://api.example.com/a 200 412 bytes
    /// in 3.1ms (include path "[contacts]", attempt 1)`.
    public var description: String {
        func path(_ includePath: String?) -> String { includePath.map { " (include path \"\($0)\")" } ?? "" }
        switch self {
        case .requestStarted(let record):
            return "request started: \(record)"
        case .requestFinished(let record):
            return "request finished: \(record)"
        case .embeddedUsed(let includePath, let rel, let count):
            return "used \(count) embedded \(rel) resource(s)\(path(includePath))"
        case .deprecatedLinkFollowed(let includePath, let url, let deprecation):
            return "followed deprecated link \(url.absoluteString)\(path(includePath)); see \(deprecation)"
        case .relationMissing(let includePath, let rel, let url):
            return "\(url?.absoluteString ?? "the resource") has no \(rel) relation\(path(includePath))"
        case .retrying(let url, let attempt, let delay, let reason):
            return "retrying \(url.absoluteString) (attempt \(attempt)) in \(delay): \(reason)"
        case .cacheHit(let url):
            return "served \(url.absoluteString) from the cache"
        case .cacheRevalidated(let url):
            return "revalidated \(url.absoluteString) (304)"
        case .fallbackUsed(let url, let error):
            return "used the fallback for \(url.absoluteString): \(error.message)"
        case .credentialsRefreshStarted(let url):
            return "refreshing credentials after a 401 from \(url.absoluteString)"
        case .credentialsRefreshFinished(let url, let error):
            return "credential refresh after \(url.absoluteString) " + (error.map { "failed: \($0)" } ?? "succeeded")
        case .resultKeyTaken(let includePath, let key):
            return "\"\(key)\" is already an attribute; the relationship is under _embedded.\(key)\(path(includePath))"
        case .stateUsed(let url):
            return "used the stored state of \(url.absoluteString)"
        case .responseHeaderIgnored(let url, let field, let value, let reason):
            return "ignored \(field): \(value) in the response from \(url.absoluteString): \(reason)"
        }
    }
}

extension RequestRecord: CustomStringConvertible {
    /// `GET <url> <status> <bytes> bytes in <duration> (include path "p", attempt n)`.
    public var description: String {
        var text = "\(method.rawValue) \(url.absoluteString)"
        if let status { text += " \(status)" }
        if let bytes { text += " \(bytes) bytes" }
        if let error { text += " failed: \(error)" }
        if let duration { text += " in \(duration)" }
        var context: [String] = []
        if let includePath { context.append("include path \"\(includePath)\"") }
        context.append("attempt \(attempt)")
        return text + " (" + context.joined(separator: ", ") + ")"
    }
}

/// One request as observed by the engine.
public struct RequestRecord: Sendable, Hashable {
    /// The method.
    public let method: RequestMethod
    /// The URL requested.
    public let url: URL
    /// The include path that caused it; `nil` for the root.
    public let includePath: String?
    /// When it started, measured from the start of the call.
    public let start: Duration
    /// How long it took; `nil` in ``HalleyEvent/requestStarted(_:)``.
    public let duration: Duration?
    /// The status, once known.
    public let status: Int?
    /// The body size in bytes, once known.
    public let bytes: Int?
    /// The transport error's description, when the request failed without a response.
    public let error: String?
    /// Which attempt this is, from 1.
    public let attempt: Int
    /// The response's header fields, once known (in ``HalleyEvent/requestFinished(_:)``
    /// with a response).
    public internal(set) var headers: HeaderFields? = nil
    /// How the response travelled, when the request asked for metrics and the requester
    /// measured them (see ``TransferMetrics``).
    public internal(set) var metrics: TransferMetrics? = nil
    /// The header fields the request was handed to the requester with (after every layer and
    /// `configureRequest`; the requester adds its transport's own, such as `Host`). They
    /// include credentials (`Authorization`): log them with care. ``description`` leaves them out.
    public internal(set) var requestHeaders: HeaderFields? = nil
}

/// A closure receiving ``HalleyEvent``s. It is called from many tasks at once, so it
/// must be thread-safe and quick.
public typealias TraversalObserver = @Sendable (HalleyEvent) -> Void

/// The former name of ``HalleyEvent``, from when only traversals reported events.
@available(*, deprecated, renamed: "HalleyEvent")
public typealias TraversalEvent = HalleyEvent
