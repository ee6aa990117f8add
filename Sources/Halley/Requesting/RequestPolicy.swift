import Foundation
import HalleyHAL
import HalleyTransport

/// Supplies headers for each request, asynchronously: the hook for refreshing tokens.
///
/// ```swift
/// configuration.headerProvider = { ["Authorization": "Bearer \(try await tokens.current())"] }
/// ```
public typealias HeaderProvider = @Sendable () async throws -> HeaderFields

/// The last chance to change a request before it is sent (after every header rule).
public typealias RequestConfigurator = @Sendable (_ request: inout ResourceRequest) async throws -> Void

/// Rejects a 2xx response, e.g. a HAL document without a rel the app needs. `document` is
/// the parsed resource for traversals and `nil` for actions. Throw to reject.
public typealias ResponseValidator = @Sendable (_ response: ResourceResponse, _ document: HALResource?) throws -> Void

/// Supplies a response (say, from disk) when a request fails. Return `nil` to let the
/// failure stand. A fallback response is validated like any other.
public typealias ResponseFallback =
    @Sendable (_ request: ResourceRequest, _ error: HalleyError) async -> ResourceResponse?

/// The request policy a manager and a call share: headers, variables, credentials, events,
/// request hooks, retries, timeouts, validation, fallback and concurrency.
///
/// The manager's ``ResourceManager/Configuration`` and each call's ``CallOptions`` hold one;
/// a call runs with `configuration.policy.merged(with: options.policy)`. Every field has one
/// merge rule, written once in ``merged(with:)``:
///
/// | Rule | Fields | The call's value |
/// | --- | --- | --- |
/// | overlay | ``headers``, ``variables`` | wins name by name |
/// | union | ``credentialHeaders``, ``allowedOrigins`` | adds to the manager's |
/// | chain | ``observer``, ``configureRequest``, ``validator`` | runs after the manager's |
/// | replace | ``retryPolicy``, ``requestTimeout``, ``fallback``, ``maxConcurrency``, ``acceptsForms`` | replaces the manager's when set |
///
/// ```swift
/// var manager = RequestPolicy()
/// manager.headers = ["User-Agent": "MyApp/1.0"]
/// var call = RequestPolicy()
/// call.headers = ["Authorization": "Bearer abc"]
/// call.maxConcurrency = 16
/// let effective = manager.merged(with: call)   // both headers, concurrency 16
/// ```
public struct RequestPolicy: Sendable {
    /// Header fields for every request (credential-bearing ones only to trusted origins).
    public var headers: HeaderFields = [:]
    /// Template variables for templated links and a templated root.
    public var variables: [String: TemplateValue] = [:]
    /// Header names that carry credentials: sent only to trusted origins. `Authorization`,
    /// `Cookie` and `Proxy-Authorization` always are, listed here or not.
    public var credentialHeaders: Set<String> = []
    /// Origins, beyond the call's root, that may receive credential-bearing headers.
    public var allowedOrigins: Set<Origin> = []
    /// Receives events.
    public var observer: TraversalObserver?
    /// Runs on every request after the header rules.
    public var configureRequest: RequestConfigurator?
    /// Rejects 2xx responses.
    public var validator: ResponseValidator?
    /// How failed requests are retried; `nil`: not set here.
    public var retryPolicy: RetryPolicy?
    /// How long one request attempt may take; `nil`: not set here (and no limit when no layer
    /// sets one).
    public var requestTimeout: Duration?
    /// Supplies a response when a request fails.
    public var fallback: ResponseFallback?
    /// The most requests in flight at once; `nil`: not set here.
    public var maxConcurrency: Int?
    /// Whether requests ask for HAL-FORMS: `true` sends `Accept: application/prs.hal-forms+json,
    /// application/hal+json, …`, so servers such as Spring HATEOAS add `_templates` (see
    /// ``HALResource/forms``); `false` or `nil` (not set anywhere) asks for plain HAL.
    ///
    /// ```swift
    /// var options = CallOptions()
    /// options.acceptsForms = true
    /// let order = try await manager.document(at: orderURL, options: options)
    /// order.forms.default?.method   // PUT
    /// ```
    public var acceptsForms: Bool?

    /// An empty policy: nothing set.
    public init() {}

    /// This policy (the manager's) with `call` laid over it, by the rules in the table above.
    public func merged(with call: RequestPolicy) -> RequestPolicy {
        var merged = self
        merged.headers.merge(call.headers)
        merged.variables = variables.overlaid(with: call.variables)
        merged.credentialHeaders.formUnion(call.credentialHeaders)
        merged.allowedOrigins.formUnion(call.allowedOrigins)
        if let first = observer, let second = call.observer {
            merged.observer = { event in
                first(event)
                second(event)
            }
        } else {
            merged.observer = observer ?? call.observer
        }
        if let first = configureRequest, let second = call.configureRequest {
            merged.configureRequest = { request in
                try await first(&request)
                try await second(&request)
            }
        } else {
            merged.configureRequest = configureRequest ?? call.configureRequest
        }
        if let first = validator, let second = call.validator {
            merged.validator = { response, document in
                try first(response, document)
                try second(response, document)
            }
        } else {
            merged.validator = validator ?? call.validator
        }
        merged.retryPolicy = call.retryPolicy ?? retryPolicy
        merged.requestTimeout = call.requestTimeout ?? requestTimeout
        merged.fallback = call.fallback ?? fallback
        merged.maxConcurrency = call.maxConcurrency ?? maxConcurrency
        merged.acceptsForms = call.acceptsForms ?? acceptsForms
        return merged
    }
}

// Every default of the request policy, each written once: a new manager's configuration starts
// from `managerDefaults`, and the pipeline falls back to the same values for a field that no
// layer sets (a configuration whose `policy` was replaced).
extension RequestPolicy {
    /// The most requests in flight, for a new manager and when no layer sets ``maxConcurrency``.
    static let defaultMaxConcurrency = 8
    /// The retries, for a new manager and when no layer sets ``retryPolicy``: none.
    static let defaultRetryPolicy = RetryPolicy.none
    /// A new manager's limit on one request attempt. When no layer sets one, there is none.
    static let defaultRequestTimeout: Duration = .seconds(60)
    /// A new manager's credential headers; the pipeline treats them as credentials whatever
    /// a policy lists.
    static let defaultCredentialHeaders = CredentialScope.defaultHeaderNames

    /// The policy a new ``ResourceManager/Configuration`` holds: the defaults above, nothing
    /// else set.
    static let managerDefaults: RequestPolicy = {
        var policy = RequestPolicy()
        policy.credentialHeaders = defaultCredentialHeaders
        policy.requestTimeout = defaultRequestTimeout
        policy.retryPolicy = defaultRetryPolicy
        policy.maxConcurrency = defaultMaxConcurrency
        return policy
    }()
}
