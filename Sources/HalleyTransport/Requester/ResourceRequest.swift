import Foundation
import HalleyHAL

/// What a requester is asked to send.
///
/// The engine builds one per URL it fetches: `GET`, `Accept: application/hal+json` (with
/// `application/prs.hal-forms+json` first when the call asks for forms), the
/// caller's headers when the URL's origin may receive them, and the include path that led
/// here (for logging and tracing; it is not sent).
public struct ResourceRequest: Sendable, Hashable {
    /// The absolute URL.
    ///
    /// A request keeps its URL as text and parses it on each read (the engine itself sends
    /// most requests without ever making a `URL`): a requester reads it once per request. A
    /// relative URL given here reads back as its absolute form.
    public var url: URL {
        get { location.url }
        set { location = LazyURL(newValue) }
    }
    /// ``url`` as the engine carries it: the text, parsed into a `URL` only when asked for.
    var location: LazyURL
    /// The method.
    public var method: RequestMethod
    /// The header fields to send.
    public var headers: HeaderFields
    /// The body, if any.
    public var body: Data?
    /// The include path that caused this request; `nil` for the root.
    public var includePath: String?
    /// How long one attempt may take before it fails with a timeout; `nil` for the
    /// requester's default.
    public var timeout: Duration?
    /// Lowercased names of the headers that carry credentials: `authorization`, `cookie` and
    /// `proxy-authorization` always, plus the names you add (setting lowercases them and keeps
    /// those three). A requester that follows redirects itself must drop them when a redirect
    /// leaves ``trustedOrigins``; ``RedirectChain`` does.
    public var credentialHeaders: Set<String> {
        get { credentialScope.headerNames }
        set { credentialScope = CredentialScope(headerNames: newValue, trustedOrigins: trustedOrigins) }
    }
    /// Origins that may receive ``credentialHeaders``; empty means only the request URL's.
    public var trustedOrigins: Set<Origin> {
        get { credentialScope.trustedOrigins }
        set { credentialScope = CredentialScope(headerNames: credentialHeaders, trustedOrigins: newValue) }
    }
    /// Both of the above, as the one value the pipeline, the redirect rules and the cache read.
    package var credentialScope: CredentialScope {
        get { storedScope ?? .unanchored }
        set { storedScope = Self.stored(newValue) }
    }
    /// What ``storedScope`` holds for `scope`: `nil` when it is the default, so that equal
    /// requests compare equal.
    private static func stored(_ scope: CredentialScope) -> CredentialScope? {
        scope.trustedOrigins.isEmpty && scope == .unanchored ? nil : scope
    }
    /// `nil` for the default: a request costs nothing to make before the pipeline gives it its
    /// scope.
    private var storedScope: CredentialScope?
    /// The largest body accepted. A requester that can should stop reading past it and throw
    /// ``ResponseBodyTooLargeError``; the engine checks again either way.
    public var maxBodyBytes: Int?
    /// Asks the requester for ``ResourceResponse/metrics`` (connection, protocol, TLS version,
    /// timings). Off by default: measuring costs a little on every request. ``CurlRequester``
    /// honours it; requesters that cannot measure ignore it.
    public var collectsMetrics = false
    /// Which send of this request this is, from 1, set by the engine: a retry or the resend
    /// after a credential refresh counts up, so a requester can tag its logs or spans with it
    /// (OpenTelemetry's `http.request.resend_count` is `attempt - 1`). Not sent.
    public var attempt = 1

    /// Creates a request.
    public init(
        url: URL, method: RequestMethod = .get, headers: HeaderFields = [:], body: Data? = nil,
        includePath: String? = nil, timeout: Duration? = nil
    ) {
        self.location = LazyURL(url)
        self.method = method
        self.headers = headers
        self.body = body
        self.includePath = includePath
        self.timeout = timeout
    }

    /// A request with the fields the pipeline sets on every request, in one initialization:
    /// set one by one after the public initializer, they cost two copies of the whole request.
    package init(
        location: LazyURL, method: RequestMethod, headers: HeaderFields, includePath: String?, timeout: Duration?,
        credentialScope: CredentialScope, maxBodyBytes: Int?
    ) {
        self.location = location
        self.method = method
        self.headers = headers
        self.body = nil
        self.includePath = includePath
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
        // Stored directly: the property's setter would copy the request being initialized.
        self.storedScope = Self.stored(credentialScope)
    }
}

/// What a requester got back.
public struct ResourceResponse: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// The response header fields.
    public var headers: HeaderFields
    /// The URL the body came from, after redirects; relative hrefs resolve against it. Kept
    /// as text and parsed on each read, as ``ResourceRequest/url`` is.
    public var url: URL {
        get { location.url }
        set { location = LazyURL(newValue) }
    }
    /// ``url`` as the engine carries it (see ``ResourceRequest/location``).
    package var location: LazyURL
    /// The body.
    public var body: Data
    /// How the response travelled, when the request asked for it
    /// (``ResourceRequest/collectsMetrics``) and the requester measures it.
    public var metrics: TransferMetrics? {
        get { storedMetrics?.metrics }
        set { storedMetrics = newValue.map(MetricsBox.init) }
    }
    /// Boxed: metrics are a dozen optional fields, most responses have none, and the pipeline
    /// moves every response through several async frames, each move a copy of its whole size.
    private var storedMetrics: MetricsBox?

    /// Creates a response.
    public init(status: Int = 200, headers: HeaderFields = [:], url: URL, body: Data) {
        self.init(status: status, headers: headers, location: LazyURL(url), body: body)
    }

    /// A response from the URL the engine carries: a requester that answers from its text
    /// never makes a `URL` of it.
    init(status: Int, headers: HeaderFields, location: LazyURL, body: Data) {
        self.status = status
        self.headers = headers
        self.location = location
        self.body = body
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }
}

/// ``ResourceResponse/metrics`` behind one reference, compared and hashed by value.
private final class MetricsBox: Sendable, Hashable {
    let metrics: TransferMetrics

    init(_ metrics: TransferMetrics) {
        self.metrics = metrics
    }

    static func == (lhs: MetricsBox, rhs: MetricsBox) -> Bool { lhs.metrics == rhs.metrics }

    func hash(into hasher: inout Hasher) { hasher.combine(metrics) }
}
