import Foundation

/// How one call traverses: embedded or links first, variables, headers, limits, observer.
///
/// Options apply at every depth of the traversal, not only to the first fetch.
///
/// ```swift
/// var options = TraversalOptions()
/// options.variables = ["page": 0]
/// options.headers = ["Authorization": "Bearer abc"]
/// options.maxConcurrency = 16
/// ```
public struct TraversalOptions: Sendable {
    /// Where an included relation is looked for first.
    public enum Preference: Sendable, Hashable {
        /// Use `_embedded[rel]` when present (no request); follow the link otherwise. HAL's
        /// intent, and the default.
        case embedded
        /// Follow the link when present, even if the resource is embedded (fresher data);
        /// use `_embedded` only for relations without a link.
        case links
    }

    /// Embedded first or links first.
    public var preference: Preference = .embedded
    /// Template variables for this call; they win over the manager's and lose to an
    /// include's own.
    public var variables: [String: TemplateValue] = [:]
    /// Header fields for this call, added after the manager's. Credential-bearing fields are
    /// sent only to the root URL's origin and ``allowedOrigins``.
    public var headers: HTTPHeaders = [:]
    /// Header names, beyond the manager's (`Authorization`, `Cookie`, `Proxy-Authorization`),
    /// that carry credentials for this call.
    public var credentialHeaders: Set<String> = []
    /// Further origins that may receive credential-bearing headers.
    public var allowedOrigins: Set<Origin> = []
    /// The most requests in flight at once; the manager's setting when `nil`.
    public var maxConcurrency: Int?
    /// The most requests one call may send (a guard against endless or hostile link graphs).
    public var maxRequests: Int = 1_000
    /// The largest response body accepted, checked while reading (16 MiB).
    public var maxBodyBytes: Int = 16 * 1024 * 1024
    /// The most items one collection page may hold.
    public var maxItemsPerPage: Int = 10_000
    /// The longest include path accepted, in segments.
    public var maxIncludeDepth: Int = 32
    /// The relation holding a collection's items, in `_embedded` or `_links`.
    public var collectionItemKey: String = "item"
    /// How documents are parsed (malformed links, nesting limit).
    public var parsing: HALParsingOptions = HALParsingOptions()
    /// How long one request attempt may take; the manager's setting when `nil`.
    public var requestTimeout: Duration?
    /// The time budget of the whole call: past it, requests in flight are cancelled and the
    /// call fails with ``HalleyError/Code/timeout`` naming what was pending.
    public var deadline: Duration?
    /// How failed requests are retried; the manager's policy when `nil`.
    public var retryPolicy: RetryPolicy?
    /// Rejects 2xx responses, after the manager's validator.
    public var validator: ResponseValidator?
    /// Supplies a response when a request fails; replaces the manager's fallback.
    public var fallback: ResponseFallback?
    /// Runs on every request of this call, after the manager's configurator.
    public var configureRequest: RequestConfigurator?
    /// Receives this call's events, in addition to the manager's observer.
    public var observer: TraversalObserver?

    /// Default options.
    public init() {}
}
