import Foundation
import HalleyHAL
import HalleyTransport

/// A layer of request policy: ``ResourceManager/Configuration`` (the manager's) and
/// ``CallOptions`` (a call's, laid over it by ``RequestPolicy/merged(with:)``).
///
/// Each field of its ``policy`` is also a property of the layer itself, written once here
/// for both: `configuration.headers` is `configuration.policy.headers`, and
/// `options.validator` is `options.policy.validator`. The two replace fields whose reading
/// differs, `retryPolicy` and `maxConcurrency` (a manager's has a default, a call's is `nil`
/// for "the manager's"), are declared by each layer.
public protocol RequestPolicyLayer {
    /// The layer's policy, which the properties below read and write.
    var policy: RequestPolicy { get set }
}

extension RequestPolicyLayer {
    /// Header fields for the requests; credential-bearing ones go to trusted origins only. A
    /// call's go over the manager's name by name. None by default.
    public var headers: HeaderFields {
        get { policy.headers }
        set { policy.headers = newValue }
    }
    /// Template variables for templated links and a templated root; a call's go over the
    /// manager's name by name. None by default.
    public var variables: [String: TemplateValue] {
        get { policy.variables }
        set { policy.variables = newValue }
    }
    /// Header names that carry credentials, sent only to trusted origins; a call's add to the
    /// manager's. A manager lists `Authorization`, `Cookie` and `Proxy-Authorization` by
    /// default, which count whether listed or not.
    public var credentialHeaders: Set<String> {
        get { policy.credentialHeaders }
        set { policy.credentialHeaders = newValue }
    }
    /// Origins, beyond a call's root, that may receive credential-bearing headers; a call's
    /// add to the manager's. None by default.
    public var allowedOrigins: Set<Origin> {
        get { policy.allowedOrigins }
        set { policy.allowedOrigins = newValue }
    }
    /// Receives the events; a call's runs after the manager's. `nil` by default.
    public var observer: TraversalObserver? {
        get { policy.observer }
        set { policy.observer = newValue }
    }
    /// Changes every request after the header rules; a call's runs after the manager's.
    /// `nil` by default.
    public var configureRequest: RequestConfigurator? {
        get { policy.configureRequest }
        set { policy.configureRequest = newValue }
    }
    /// Rejects 2xx responses; a call's runs after the manager's. `nil` by default.
    public var validator: ResponseValidator? {
        get { policy.validator }
        set { policy.validator = newValue }
    }
    /// How long one request attempt may take: 60 s for a new manager, `nil` for no limit; a
    /// call's replaces the manager's when set.
    public var requestTimeout: Duration? {
        get { policy.requestTimeout }
        set { policy.requestTimeout = newValue }
    }
    /// Supplies a response when a request fails; a call's replaces the manager's when set.
    /// `nil` by default: the failure stands.
    public var fallback: ResponseFallback? {
        get { policy.fallback }
        set { policy.fallback = newValue }
    }
    /// Whether requests ask for HAL-FORMS (see ``RequestPolicy/acceptsForms``); a call's
    /// replaces the manager's when set. `nil` by default: plain HAL.
    public var acceptsForms: Bool? {
        get { policy.acceptsForms }
        set { policy.acceptsForms = newValue }
    }
}
