import Foundation

/// How one call runs, traversal or action: its ``RequestPolicy`` over the manager's, plus
/// embedded or links first, limits and parsing.
///
/// Options apply at every depth of a traversal, not only to the first fetch.
///
/// ```swift
/// var options = CallOptions()
/// options.variables = ["page": 0]
/// options.headers = ["Authorization": "Bearer abc"]
/// options.maxConcurrency = 16
/// ```
public struct CallOptions: Sendable {
    /// Where an included relation is looked for first.
    public enum Preference: Sendable, Hashable {
        /// Use `_embedded[rel]` when present (no request); follow the link otherwise. HAL's
        /// intent, and the default.
        case embedded
        /// Follow the link when present, even if the resource is embedded (fresher data);
        /// use `_embedded` only for relations without a link.
        case links
    }

    /// This call's policy, laid over the manager's by ``RequestPolicy/merged(with:)``; the
    /// policy properties below forward to it.
    public var policy = RequestPolicy()
    /// Embedded first or links first.
    public var preference: Preference = .embedded
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
    /// The time budget of the whole call: past it, requests in flight are cancelled and the
    /// call fails with ``HalleyError/Code/timeout`` naming what was pending.
    public var deadline: Duration?

    /// Template variables for this call; they win over the manager's and lose to an
    /// include's own.
    public var variables: [String: TemplateValue] {
        get { policy.variables }
        set { policy.variables = newValue }
    }
    /// Header fields for this call, added after the manager's. Credential-bearing fields are
    /// sent only to the root URL's origin and ``allowedOrigins``.
    public var headers: HTTPHeaders {
        get { policy.headers }
        set { policy.headers = newValue }
    }
    /// Header names, beyond the manager's (`Authorization`, `Cookie`, `Proxy-Authorization`),
    /// that carry credentials for this call.
    public var credentialHeaders: Set<String> {
        get { policy.credentialHeaders }
        set { policy.credentialHeaders = newValue }
    }
    /// Further origins that may receive credential-bearing headers.
    public var allowedOrigins: Set<Origin> {
        get { policy.allowedOrigins }
        set { policy.allowedOrigins = newValue }
    }
    /// The most requests in flight at once; the manager's setting when `nil`.
    public var maxConcurrency: Int? {
        get { policy.maxConcurrency }
        set { policy.maxConcurrency = newValue }
    }
    /// How long one request attempt may take; the manager's setting when `nil`.
    public var requestTimeout: Duration? {
        get { policy.requestTimeout }
        set { policy.requestTimeout = newValue }
    }
    /// How failed requests are retried; the manager's policy when `nil`.
    public var retryPolicy: RetryPolicy? {
        get { policy.retryPolicy }
        set { policy.retryPolicy = newValue }
    }
    /// Rejects 2xx responses, after the manager's validator.
    public var validator: ResponseValidator? {
        get { policy.validator }
        set { policy.validator = newValue }
    }
    /// Supplies a response when a request fails; replaces the manager's fallback.
    public var fallback: ResponseFallback? {
        get { policy.fallback }
        set { policy.fallback = newValue }
    }
    /// Runs on every request of this call, after the manager's configurator.
    public var configureRequest: RequestConfigurator? {
        get { policy.configureRequest }
        set { policy.configureRequest = newValue }
    }
    /// Receives this call's events, in addition to the manager's observer.
    public var observer: TraversalObserver? {
        get { policy.observer }
        set { policy.observer = newValue }
    }

    /// Default options.
    public init() {}
}

/// The former name of ``CallOptions``, from when only traversals took options.
@available(*, deprecated, renamed: "CallOptions")
public typealias TraversalOptions = CallOptions
