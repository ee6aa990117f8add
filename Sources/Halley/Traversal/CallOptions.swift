import Foundation
import HalleyHAL
import HalleyTransport

/// How one call runs, traversal or action: its ``RequestPolicy`` over the manager's (headers,
/// variables, credentials, observer, hooks, retries, timeout, validation, fallback,
/// concurrency, each also a property of its own: `options.headers` and so on), plus embedded
/// or links first, limits and parsing.
///
/// Options apply at every depth of a traversal, not only to the first fetch.
///
/// ```swift
/// var options = CallOptions()
/// options.variables = ["page": 0]
/// options.headers = ["Authorization": "Bearer abc"]
/// options.maxConcurrency = 16
/// ```
@dynamicMemberLookup
public struct CallOptions: RequestPolicyLayer, Sendable {
    /// Where an included relation is looked for first.
    public enum Preference: Sendable, Hashable {
        /// Use `_embedded[rel]` when present (no request); follow the link otherwise. HAL's
        /// intent, and the default.
        case embedded
        /// Follow the link when present, even if the resource is embedded (fresher data);
        /// use `_embedded` only for relations without a link.
        case links
    }

    /// This call's policy, laid over the manager's by ``RequestPolicy/merged(with:)``. Each of
    /// its fields has a property of the same name here (`options.headers`,
    /// `options.retryPolicy`; see ``RequestPolicyLayer``): `nil` in a replace field means
    /// "the manager's".
    public var policy = RequestPolicy()

    /// How this call's failed requests are retried; `nil`: the manager's.
    public var retryPolicy: RetryPolicy? {
        get { policy.retryPolicy }
        set { policy.retryPolicy = newValue }
    }
    /// The most requests this call keeps in flight; `nil`: the manager's.
    public var maxConcurrency: Int? {
        get { policy.maxConcurrency }
        set { policy.maxConcurrency = newValue }
    }

    /// A field of ``policy`` by key path: `options[dynamicMember: \.headers]`. Every field has
    /// its own property; this keeps code that names one by key path compiling.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<RequestPolicy, Value>) -> Value {
        get { policy[keyPath: keyPath] }
        set { policy[keyPath: keyPath] = newValue }
    }

    /// Embedded first or links first.
    public var preference: Preference = .embedded
    /// The most requests one call may send (a guard against endless or hostile link graphs).
    ///
    /// Distinct URLs count once. A to-many relation that would pass the limit fails with
    /// ``HalleyError/Code/limitExceeded`` before any of its requests is built. ``PagedItems``
    /// makes one call per page and one per item a page links to, each held to this limit.
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
    /// Whether an included relation a resource lacks fails the call: `false` (the default)
    /// leaves the relationship out and reports ``HalleyEvent/relationMissing(includePath:rel:url:)``;
    /// `true` fails with ``HalleyError/Code/missingRelation``, naming the include path and the
    /// rels the resource has, so a misspelled include (`"publishr"`) cannot pass unnoticed.
    /// With ``ResourceManager/traverse(_:includes:options:)-(URL,_,_)``, the failure is listed
    /// among the result's failures as any other relationship's.
    public var strictIncludes = false

    /// Default options.
    public init() {}
}

/// The former name of ``CallOptions``, from when only traversals took options.
@available(*, deprecated, renamed: "CallOptions")
public typealias TraversalOptions = CallOptions
