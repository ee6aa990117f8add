import Foundation
import HalleyHAL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Security)
    import Security
#endif

/// Sends requests through `URLSession`: the default on Apple platforms, and the fallback on
/// Linux (through FoundationNetworking) when ``CurlRequester`` cannot load libcurl.
///
/// Redirects are followed by Halley's own rules (``RedirectChain``, as ``CurlRequester``
/// follows them): each hop URLSession proposes is replaced by the chain's. The response's
/// ``ResourceResponse/url`` is where the body finally came from. A redirect to an origin
/// outside the request's ``ResourceRequest/trustedOrigins`` drops credential-bearing headers
/// (`Authorization`, `Cookie`, `Proxy-Authorization`, the request's
/// ``ResourceRequest/credentialHeaders`` and any you add here), so a server cannot bounce
/// your token to a host you never trusted; URLSession on Linux would otherwise forward them.
/// Redirects to schemes other than `http` and `https`, and more than 20 in a row, are refused
/// with ``TransportError/Code/redirectRefused``. On Linux, a 307 or 308 that must send a body again is not followed
/// (FoundationNetworking would send the request without it): the redirect is the response.
///
/// A `User-Agent` in the session configuration's `httpAdditionalHeaders` is the caller's: it
/// replaces the library's default (`HalleyVersion.userAgent`); one set through Halley's own
/// headers (the manager's, the call's) still wins over both, as URLSession lets a request's do.
///
/// With its own session (``init(configuration:credentialHeaders:maxConnectionsPerHost:maxHeaderBytes:maxHeaderCount:tls:proxy:challenges:)``):
///
/// - **No cookies.** The session neither stores nor sends cookies, so a `Set-Cookie` from one
///   server is never sent to another (cookies ignore ports: two services on one host would
///   otherwise share them). Send a `Cookie` header yourself when an API needs one.
/// - **No URL cache and no credential storage**: Halley's own cache and store
///   (``ResponseCache``, ``ResourceStore``) see every request, and a `401` is returned as a
///   response at once, never answered with a stored password, single sign-on or a keychain
///   identity (``ChallengeHandling/systemDefault`` opts in to those). For URLSession's cache
///   as well, pass your own session (see <doc:Platforms>).
/// - **Metrics**: with ``ResourceRequest/collectsMetrics``, ``ResourceResponse/metrics`` from
///   `URLSessionTaskMetrics` (your own session's too), in ``CurlRequester``'s terms.
/// - **Connections per host**: 64 by default, so a traversal with a high
///   ``ResourceManager/Configuration/maxConcurrency`` is not queued behind URLSession's
///   default of 6.
/// - **Limits while reading**: the body is counted as it arrives and the caller is answered
///   past ``ResourceRequest/maxBodyBytes`` at once; a `Content-Length` above it is refused
///   before the body. Header sections over `maxHeaderBytes` or `maxHeaderCount` are
///   ``ResponseHeadersTooLargeError``.
///
/// On Linux, FoundationNetworking queues every chunk it reads for the delegate without
/// waiting for it, so a server pushing an endless body at full loopback speed can still
/// grow memory faster than the delegate drains it, and cancelling the task does not stop
/// libcurl at once. ``CurlRequester``, the Linux default, has neither problem.
///
/// FoundationNetworking in Swift 6.3 also keeps about 0.35 KiB of heap for every request until
/// the process ends (it frees a libcurl URL handle with the wrong call; later
/// swift-corelibs-foundation fixes it): about 8 MiB per 25,000 requests, whatever session sent
/// them. Releasing the requester invalidates a session it made and gives back its
/// connections, descriptors and threads, but not that memory.
///
/// Cancelling the calling task cancels the `URLSessionTask`. With the requester's own
/// session, the cancellation runs on the session's delegate queue and only while the task has
/// not completed: FoundationNetworking traps when a cancellation races a task's completion.
///
/// TLS and proxies (see <doc:TLSAndProxies>): on Apple platforms a ``TLSConfiguration``'s
/// trust roots, pinned keys, minimum version and ``TLSConfiguration/dangerouslyTrustingAnyCertificate()``
/// are honoured by the session's delegate; a client identity from PEM is not (URLSession
/// takes identities from the keychain: answer the challenge in your own session's delegate).
/// On Linux FoundationNetworking has no TLS setting at all, and proxies only as libcurl reads
/// them from the environment. Whatever a requester cannot honour makes each request throw
/// ``UnsupportedSettingsError`` naming it, before anything is sent; ``CurlRequester``
/// honours everything.
///
/// ```swift
/// let manager = ResourceManager(requester: URLSessionRequester(maxConnectionsPerHost: 16))
/// ```
public struct URLSessionRequester: ResourceRequester, Sendable {
    private let owner: SessionOwner
    /// The proxy rules, the environment already read; `nil` for a caller's session.
    private let proxy: ProxyConfiguration?
    /// What the requester cannot honour, or cannot use, thrown by every request.
    private let settingsFailure: (any Error & Sendable)?

    /// Header names never forwarded across origins on redirect, whichever names a requester
    /// or a request adds.
    public static let defaultCredentialHeaders: Set<String> = CredentialScope.defaultHeaderNames

    /// Redirects followed in a row before ``RedirectError``: URLSession's own limit.
    private static let maxRedirects = 20

    /// Connections per host a requester's own session opens at most: enough for a traversal
    /// of `maxConcurrency` 64 to keep every request in flight.
    public static let defaultMaxConnectionsPerHost = 64

    /// Creates a requester with its own session.
    ///
    /// The configuration is copied, then cookies, the URL cache and credential storage are
    /// turned off (credential storage stays with ``ChallengeHandling/systemDefault``) and
    /// `httpMaximumConnectionsPerHost` is set (see the type's notes).
    ///
    /// ```swift
    /// let configuration = URLSessionConfiguration.ephemeral
    /// configuration.httpAdditionalHeaders = ["User-Agent": "MyApp/1.0"]
    /// let requester = URLSessionRequester(configuration: configuration, maxConnectionsPerHost: 32)
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: The session configuration; `.ephemeral` by default, so nothing is
    ///     cached on disk or shared with other sessions.
    ///   - credentialHeaders: Header names removed when a redirect leaves the trusted origins,
    ///     in addition to ``defaultCredentialHeaders`` and each request's own.
    ///   - maxConnectionsPerHost: Connections open at once to one host (64 by default).
    ///   - maxHeaderBytes: The largest response header section accepted, in bytes.
    ///   - maxHeaderCount: The most response header fields accepted.
    ///   - tls: Trust roots, pinned keys, minimum version; see the type's notes for what each
    ///     platform honours.
    ///   - proxy: Which proxy each request goes through; the environment variables decide
    ///     unless given (on Apple platforms, the system's proxy settings apply when no
    ///     variable is set).
    ///   - challenges: How challenges other than server trust are answered: none by default,
    ///     so a `401` comes back as the response (see ``ChallengeHandling``).
    public init(
        configuration: URLSessionConfiguration = .ephemeral,
        credentialHeaders: Set<String> = URLSessionRequester.defaultCredentialHeaders,
        maxConnectionsPerHost: Int = URLSessionRequester.defaultMaxConnectionsPerHost,
        maxHeaderBytes: Int = ResponseHeadersTooLargeError.defaultMaxBytes,
        maxHeaderCount: Int = ResponseHeadersTooLargeError.defaultMaxCount,
        tls: TLSConfiguration = .system,
        proxy: ProxyConfiguration = .environment,
        challenges: ChallengeHandling = .returnResponse
    ) {
        let proxy = proxy.resolved()
        self.proxy = proxy
        let copied = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        copied.httpCookieStorage = nil
        copied.httpShouldSetCookies = false
        copied.httpCookieAcceptPolicy = .never
        // Halley's own cache and store must see every request; a URLCache would answer some
        // before them (see the type's notes for a session that keeps one).
        copied.urlCache = nil
        copied.requestCachePolicy = .reloadIgnoringLocalCacheData
        // The system's default handling may answer from the credential storage: kept only
        // when the caller asks for that handling.
        if challenges == .returnResponse { copied.urlCredentialStorage = nil }
        copied.httpMaximumConnectionsPerHost = max(1, maxConnectionsPerHost)
        let limits = HeaderLimits(bytes: maxHeaderBytes, count: maxHeaderCount)
        var security = SessionSecurity(tls: tls, proxy: proxy, configuration: copied)
        security.challenges = challenges
        settingsFailure = security.failure
        let delegate = SessionDelegate(security: security)
        owner = SessionOwner(
            session: URLSession(configuration: copied, delegate: delegate, delegateQueue: nil), delegate: delegate,
            credentialHeaders: credentialHeaders, limits: limits, ownsSession: true)
    }

    /// Creates a requester that sends through your own session: for client certificates,
    /// certificate pinning in your session's delegate, a proxy, or a shared connection pool.
    ///
    /// Your session's configuration applies as it is: its cookie storage, URL cache,
    /// credential storage and connections per host; Halley changes none of them. Each request
    /// still gets a task delegate of Halley's own, which guarantees:
    ///
    /// - credential headers are stripped from redirects that leave the trusted origins, and
    ///   redirects to schemes other than `http` and `https` are refused;
    /// - a `401` is returned as the response; on Apple platforms URLSession's default
    ///   handling answers challenges first, from your configuration's credential storage;
    /// - ``ResourceRequest/maxBodyBytes`` and the header limits are checked when the
    ///   response arrives, from its `Content-Length` and header fields, and on the whole body
    ///   after it arrived. The body is not counted while it streams (the convenience API
    ///   that takes a task delegate buffers it), so memory is only bounded by the
    ///   ``RequestPolicy/requestTimeout``.
    ///
    /// The session is not invalidated when the requester goes away: it is yours.
    ///
    /// ```swift
    /// // Your session: its delegate can pin certificates or present a client certificate.
    /// let session = URLSession(configuration: .default)
    /// let manager = ResourceManager(requester: URLSessionRequester(session: session))
    /// ```
    public init(
        session: URLSession,
        credentialHeaders: Set<String> = URLSessionRequester.defaultCredentialHeaders,
        maxHeaderBytes: Int = ResponseHeadersTooLargeError.defaultMaxBytes,
        maxHeaderCount: Int = ResponseHeadersTooLargeError.defaultMaxCount
    ) {
        owner = SessionOwner(
            session: session, delegate: nil, credentialHeaders: credentialHeaders,
            limits: HeaderLimits(bytes: maxHeaderBytes, count: maxHeaderCount), ownsSession: false)
        // Your session's own settings apply; Halley adds none.
        proxy = nil
        settingsFailure = nil
    }

    /// Sends the request through the session.
    ///
    /// ```swift
    /// let response = try await URLSessionRequester().response(
    ///     for: ResourceRequest(url: URL(string: "https://api.example.com/")!, timeout: .seconds(10)))
    /// print(response.status, response.headers["Content-Type"] ?? "")
    /// ```
    ///
    /// - Throws: ``TransportError`` for transport failures (TLS, proxy and redirect failures
    ///   with their ``TLSError``, ``ProxyError`` or ``RedirectError`` underneath),
    ///   ``ResponseBodyTooLargeError`` past the body limit, ``ResponseHeadersTooLargeError``
    ///   past the header limits,
    ///   ``UnsupportedSettingsError`` and ``TLSConfigurationError`` (see the type's notes),
    ///   `CancellationError` when cancelled.
    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        // Read once: a request carries its URL as text, parsed on each read (see `ResourceRequest.url`).
        let url = request.url
        return try await TransportError.classifyingRefusals(at: url) { try await exchange(request, url: url) }
    }

    /// The exchange; ``response(for:)`` puts proxy, redirect and TLS refusals into the shared
    /// vocabulary.
    private func exchange(_ request: ResourceRequest, url: URL) async throws -> ResourceResponse {
        if let settingsFailure { throw settingsFailure }
        var request = request
        if owner.sessionSetsUserAgent, request.headers["User-Agent"] == HalleyVersion.userAgent {
            // The session's configuration names an agent (`httpAdditionalHeaders`): the
            // caller's, which the library's default gives way to, as any caller's does.
            request.headers["User-Agent"] = nil
        }
        var transfer = Transfer(
            chain: RedirectChain(
                request, credentialHeaders: owner.credentialHeaders, maxRedirects: Self.maxRedirects),
            timeout: request.timeout, proxy: proxy, limits: owner.limits, maxBytes: request.maxBodyBytes,
            url: url)
        let route = try proxy?.proxy(for: url)
        if let proxy, let route,
            let refusal = proxy.refusal(
                url: url, through: route, headers: request.headers,
                credentialHeaders: transfer.chain.scope.headerNames)
        {
            throw refusal
        }
        // URLSession measures every task; read only when asked, as CurlRequester reads libcurl's.
        if request.collectsMetrics { transfer.metrics = LockedValue(nil) }
        let urlRequest = transfer.urlRequest()
        let began = ContinuousClock.now
        let (data, response): (Data, URLResponse)
        do {
            if let delegate = owner.delegate {
                (data, response) = try await delegate.run(urlRequest, transfer, in: owner.session)
            } else {
                (data, response) = try await TaskDelegate.run(urlRequest, transfer, in: owner.session)
            }
        } catch let error as URLError {
            throw Self.translated(error, url: url, route: route)
        }
        var status = 200
        var headers = HeaderFields()
        if let http = response as? HTTPURLResponse {
            status = http.statusCode
            // One pass: a response can carry tens of thousands of fields.
            headers = HeaderFields(
                http.allHeaderFields.map { (String(describing: $0.key), String(describing: $0.value)) })
        }
        if status == 407, let route {
            throw ProxyError(proxy: route.hostAndPort, url: url, reason: .authenticationRequired)
        }
        var answer = ResourceResponse(status: status, headers: headers, url: response.url ?? url, body: data)
        // FoundationNetworking (Swift 6.3) reports no URLSessionTaskMetrics: the total time,
        // by the requester's own clock, is what can be known there.
        answer.metrics = transfer.metrics.map { $0.get() ?? TransferMetrics(total: ContinuousClock.now - began) }
        return answer
    }

    /// A URLSession failure as the ``TransportError`` ``CurlRequester`` gives for the same
    /// failure: a connection that fails through a proxy is the proxy's (the client connects
    /// to nothing else), and a certificate URLSession refused is a ``TLSError``.
    static func translated(_ error: URLError, url: URL, route: ProxyConfiguration.Proxy?) -> any Error {
        let translated = securityTranslated(error, url: url, route: route)
        return TransportError(classifying: translated, url: url) ?? translated
    }

    /// A URLSession failure as the ``TLSError`` or ``ProxyError`` it stands for, or itself.
    private static func securityTranslated(_ error: URLError, url: URL, route: ProxyConfiguration.Proxy?)
        -> any Error
    {
        let detail = (error.userInfo[NSLocalizedDescriptionKey] as? String) ?? ""
        if let route {
            switch error.code {
            case .cannotConnectToHost:
                return ProxyError(proxy: route.hostAndPort, url: url, reason: .cannotConnect, detail: detail)
            case .cannotFindHost, .dnsLookupFailed:
                return ProxyError(proxy: route.hostAndPort, url: url, reason: .cannotResolve, detail: detail)
            default:
                break
            }
        }
        switch error.code {
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot:
            return TLSError(kind: .untrustedCertificate, url: url, detail: detail)
        case .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            return TLSError(kind: .expiredCertificate, url: url, detail: detail)
        case .clientCertificateRequired, .clientCertificateRejected:
            return TLSError(kind: .clientCertificateRequired, url: url, detail: detail)
        case .secureConnectionFailed:
            return TLSError(kind: .handshakeFailed, url: url, detail: detail)
        case .unknown where TLSError.Kind.isRefusedCertificate(detail):
            // FoundationNetworking: libcurl's message is all it passes on.
            return TLSError(kind: .ofRefusedCertificate(detail), url: url, detail: detail)
        default:
            return error
        }
    }
}

/// What a requester's own session does about TLS and proxies, worked out once: the
/// configuration it sets, what the delegate checks, and what cannot be honoured.
struct SessionSecurity: Sendable {
    /// Thrown by every request: a setting this platform cannot honour, or a file that cannot
    /// be used.
    var failure: (any Error & Sendable)?
    /// The proxy's credentials, for a 407 challenge (Apple platforms).
    var proxyCredentials: ProxyConfiguration.Credentials?
    /// How challenges other than server trust are answered (Apple platforms).
    var challenges: URLSessionRequester.ChallengeHandling = .returnResponse
    #if canImport(Security)
        var trust: TrustEvaluator?
    #endif

    init(tls: TLSConfiguration, proxy: ProxyConfiguration, configuration: URLSessionConfiguration) {
        var unsupported: [String] = []
        #if canImport(FoundationNetworking)
            // FoundationNetworking sets no TLS option on its libcurl handles, and no proxy:
            // libcurl reads the proxy variables itself, by the rules ProxyConfiguration follows.
            unsupported = tls.nonDefaultSettings
            if !proxy.matchesProcessEnvironment {
                unsupported.append(
                    proxy.mayUseProxy
                        ? "a proxy other than the environment's (\(proxy))"
                        : "ProxyConfiguration.direct while the environment sets a proxy")
            }
            let requester = "URLSessionRequester on Linux (FoundationNetworking)"
            let advice = "use CurlRequester, the default on Linux"
        #else
            unsupported = applySettings(tls: tls, proxy: proxy, to: configuration)
            AppleSessionSecurity.configure(configuration, for: tls)
            let requester = "URLSessionRequester"
            let advice = "answer the challenge in your own session's delegate (init(session:)), or use CurlRequester"
        #endif
        guard unsupported.isEmpty else {
            failure = UnsupportedSettingsError(requester: requester, settings: unsupported, advice: advice)
            return
        }
        #if canImport(Security)
            if !tls.isSystemDefault {
                do {
                    trust = TrustEvaluator(tls: tls, material: try TLSMaterial(tls))
                } catch {
                    failure = error
                }
            }
        #endif
    }

    /// What an Apple session takes of the settings: the proxy rules into `configuration`, the
    /// proxy's credentials for its challenge; returns the settings it cannot honour. Only
    /// Foundation API both platforms declare, so compiled and tested on Linux too.
    mutating func applySettings(
        tls: TLSConfiguration, proxy: ProxyConfiguration, to configuration: URLSessionConfiguration
    ) -> [String] {
        var unsupported: [String] = []
        if tls.clientIdentity != nil {
            unsupported.append("client identity from PEM (URLSession takes identities from the keychain)")
        }
        if case .rules(let rules) = proxy.source {
            if [rules.http, rules.https].contains(where: { $0?.proxy?.scheme == "https" }) {
                unsupported.append("an https:// proxy")
            }
            configuration.connectionProxyDictionary = Self.proxyDictionary(rules)
            proxyCredentials = (rules.https?.proxy ?? rules.http?.proxy)?.credentials
        }
        return unsupported
    }

    /// The rules as CFNetwork's proxy dictionary (Apple platforms), with its keys spelled out:
    /// `kCFNetworkProxiesHTTPSEnable`, `…HTTPSProxy`, `…HTTPSPort` and `…ExceptionsList` are
    /// macOS-only names, while iOS honours the strings they stand for. Plain dictionary work,
    /// so it is compiled and tested on Linux too. `nil` keeps the system's settings: no
    /// variable was set.
    static func proxyDictionary(_ rules: ProxyConfiguration.Rules) -> [AnyHashable: Any]? {
        if rules.fromEnvironment && rules.http == nil && rules.https == nil { return nil }
        var dictionary: [AnyHashable: Any] = ["HTTPEnable": 0, "HTTPSEnable": 0]
        if let http = rules.http?.proxy {
            dictionary["HTTPEnable"] = 1
            dictionary["HTTPProxy"] = http.host
            dictionary["HTTPPort"] = http.port
        }
        if let https = rules.https?.proxy {
            dictionary["HTTPSEnable"] = 1
            dictionary["HTTPSProxy"] = https.host
            dictionary["HTTPSPort"] = https.port
        }
        // A NO_PROXY name covers its sub-domains; CFNetwork wants both patterns.
        dictionary["ExceptionsList"] = rules.noProxy.entries.flatMap { entry -> [String] in
            let name = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            return IPRange(name) != nil || name == "*" ? [name] : [name, "*." + name]
        }
        return dictionary
    }
}

/// Owns a requester's session: when the last copy of the requester goes away, a session the
/// requester made is invalidated after its tasks finish, so neither it nor its delegate
/// outlives the requester. A caller's session is left alone.
private final class SessionOwner: Sendable {
    let session: URLSession
    /// The session's delegate when the requester made the session.
    let delegate: SessionDelegate?
    let credentialHeaders: Set<String>
    let limits: HeaderLimits
    let ownsSession: Bool
    /// Whether the session's configuration sets a `User-Agent` of its own.
    let sessionSetsUserAgent: Bool

    init(
        session: URLSession, delegate: SessionDelegate?, credentialHeaders: Set<String>, limits: HeaderLimits,
        ownsSession: Bool
    ) {
        self.session = session
        sessionSetsUserAgent = (session.configuration.httpAdditionalHeaders ?? [:]).keys.contains {
            String(describing: $0).caseInsensitiveCompare("User-Agent") == .orderedSame
        }
        self.delegate = delegate
        self.credentialHeaders = credentialHeaders
        self.limits = limits
        self.ownsSession = ownsSession
    }

    deinit {
        if ownsSession { session.finishTasksAndInvalidate() }
    }
}

/// The limits on a response's header section.
struct HeaderLimits: Sendable {
    let bytes: Int
    let count: Int

    /// The error for `fields` (name/value pairs as parsed) when they pass a limit.
    func check(_ fields: [(String, String)], url: URL) -> ResponseHeadersTooLargeError? {
        if fields.count > count { return ResponseHeadersTooLargeError(url: url, limit: .count(count)) }
        // Each field as a line: name, ": ", value, CRLF.
        let size = fields.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 }
        if size > bytes { return ResponseHeadersTooLargeError(url: url, limit: .bytes(bytes)) }
        return nil
    }

    func check(_ response: URLResponse, url: URL) -> ResponseHeadersTooLargeError? {
        guard let http = response as? HTTPURLResponse else { return nil }
        return check(http.allHeaderFields.map { (String(describing: $0.key), String(describing: $0.value)) }, url: url)
    }
}

/// What to do with a redirect URLSession reports.
private enum RedirectDecision {
    /// Follow with this request.
    case follow(URLRequest)
    /// Do not follow: the redirect response is the answer.
    case stop
    /// Refuse with this error.
    case refuse(any Error & Sendable)

    /// Answers URLSession's redirect callback; a refusal also fails the task with its error.
    func answer(_ completionHandler: (URLRequest?) -> Void, refusing: (any Error) -> Void) {
        switch self {
        case .follow(let next):
            completionHandler(next)
        case .stop:
            completionHandler(nil)
        case .refuse(let error):
            completionHandler(nil)
            refusing(error)
        }
    }
}

/// One request's redirects, limits and state.
private struct Transfer: Sendable {
    /// Halley's redirect rules, at the hop being sent.
    var chain: RedirectChain
    /// The request's per-attempt limit, for every hop.
    let timeout: Duration?
    /// The requester's proxy rules, to refuse a hop that would carry credentials in clear
    /// through a proxy; `nil` for a caller's session.
    let proxy: ProxyConfiguration?
    let limits: HeaderLimits
    let maxBytes: Int?
    let url: URL
    var data = Data()
    var response: URLResponse?
    /// Where the delegate puts the task's metrics when the request asked for them: shared by
    /// every copy of the transfer, so the exchange reads what the delegate wrote.
    var metrics: LockedValue<TransferMetrics?>?
    /// Why a caller's session's task was cancelled by its delegate.
    var failure: (any Error)?
    /// Whether a caller's session's task was cancelled at an authentication challenge.
    var challenged = false
    var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
    /// Whether the delegate is answering a redirect (see ``RedirectGate``; a caller's session only).
    var redirectPending = false
    /// Whether the task is to be cancelled; for a caller's session deferred while
    /// ``redirectPending``, for the requester's own session done on its delegate queue.
    var cancelRequested = false
    /// Whether `cancel()` was called on the requester's own session's task (once at most).
    var cancelIssued = false

    /// URLSession's request for the chain's current hop.
    func urlRequest() -> URLRequest {
        let hop = chain.current
        var request = URLRequest(url: hop.url)
        request.httpMethod = hop.method.rawValue
        request.httpBody = hop.body
        // Never to an origin, and URLSession cannot address the proxy alone: proxy
        // credentials go in the proxy URL.
        for field in hop.headers where field.name.lowercased() != "proxy-authorization" {
            request.addValue(field.value, forHTTPHeaderField: field.name)
        }
        if let timeout {
            // FoundationNetworking truncates the interval to whole seconds (0.5 s times out at
            // once), so URLSession gets at least a second, rounded up; the engine enforces the
            // exact budget itself. At most 10^9 s (31 years): FoundationNetworking counts the
            // interval in milliseconds of an `Int`, which a longer one overflows (a trap).
            request.timeoutInterval = min(max(1, timeout.inSeconds.rounded(.up)), 1e9)
        }
        return request
    }

    /// The answer to a redirect: the chain decides the next hop (URLSession's proposal is
    /// replaced by it), then what URLSession cannot send as the chain says is not followed:
    ///
    /// - a hop that must send a body again (a 307 or 308) on FoundationNetworking, which drops
    ///   the body of every redirect: the redirect comes back as the response rather than an
    ///   empty `PUT` reaching the server;
    /// - a hop that would carry credentials in clear through a proxy is refused.
    mutating func redirect(after response: HTTPURLResponse) -> RedirectDecision {
        let location = HeaderFields(
            response.allHeaderFields.map { (String(describing: $0.key), String(describing: $0.value)) })["Location"]
        do {
            guard try chain.follow(status: response.statusCode, location: location) else { return .stop }
        } catch {
            return .refuse(error)
        }
        let hop = chain.current
        #if canImport(FoundationNetworking)
            if let body = hop.body, !body.isEmpty { return .stop }
        #endif
        if let proxy {
            do {
                if let route = try proxy.proxy(for: hop.url),
                    let refusal = proxy.refusal(
                        url: hop.url, through: route, headers: hop.headers, credentialHeaders: chain.scope.headerNames)
                {
                    return .refuse(refusal)
                }
            } catch {
                return .refuse(error)
            }
        }
        return .follow(urlRequest())
    }

    /// The error for a response that is refused before its body: headers past the limits,
    /// or a `Content-Length` past the body limit.
    func refusal(of response: URLResponse) -> (any Error)? {
        if let error = limits.check(response, url: url) { return error }
        if let limit = maxBytes, response.expectedContentLength > Int64(limit) {
            return ResponseBodyTooLargeError(url: url, limit: limit)
        }
        return nil
    }
}

/// Keeps a task's cancellation and the answer to its redirect in order.
///
/// FoundationNetworking (Swift 6.3) traps ("Received callback for HTTP redirection, but we're
/// not waiting for it") when a redirect is answered after the task was cancelled: both reach
/// the task's work queue asynchronously, and a cancellation that lands first leaves nobody
/// waiting for the answer. A fail-fast traversal cancels requests all the time, some of them
/// mid-redirect. So the delegate's own cancellations wait while it answers a redirect and
/// follow the answer; and a redirect of a task already being cancelled is not answered (the
/// cancellation completes the task).
///
/// The task delegate of a caller's session uses the gate. The requester's own session needs
/// none: every cancellation runs on its serial delegate queue, where redirects are answered.
private enum RedirectGate {
    /// Records a cancellation; whether to cancel now (no redirect answer under way).
    static func requestCancel(_ transfer: inout Transfer) -> Bool {
        transfer.cancelRequested = true
        return !transfer.redirectPending
    }

    /// Whether to answer the redirect now; marks the answer as under way.
    static func beginAnswer(_ transfer: inout Transfer) -> Bool {
        guard !transfer.cancelRequested else { return false }
        transfer.redirectPending = true
        return true
    }

    /// The answer went out; whether a cancellation waited for it.
    static func endAnswer(_ transfer: inout Transfer) -> Bool {
        transfer.redirectPending = false
        return transfer.cancelRequested
    }
}

/// How the task delegate of a caller's session answers a challenge on Apple platforms: the
/// system's default, which evaluates server trust and answers a 401 from the session's own
/// credential storage, as the caller configured it (a requester's own session answers in
/// ``AppleSessionSecurity``).
///
/// FoundationNetworking (Swift 6.3) is answered differently, in the delegates: it raises the
/// challenge only after the whole 401 has arrived, and on default handling without a
/// credential it leaves the task hanging until its timeout, so the delegates answer the
/// caller with the 401 themselves and cancel the challenge.
private let appleDisposition = URLSession.AuthChallengeDisposition.performDefaultHandling

/// libcurl's own header limits, which FoundationNetworking reports as `URLError(.unknown)`
/// with libcurl's message: a header line over 100 KiB ("Out of memory") or a header section
/// over 300 KiB ("Too large response headers: n > 307200").
private func headerLimitError(_ error: any Error, url: URL, responseArrived: Bool) -> ResponseHeadersTooLargeError? {
    guard !responseArrived, let urlError = error as? URLError, urlError.code == .unknown else { return nil }
    let message = (urlError.userInfo[NSLocalizedDescriptionKey] as? String) ?? ""
    if message.hasPrefix("Too large response headers") {
        let limit = message.split(separator: " ").last.flatMap { Int($0) } ?? 307_200
        return ResponseHeadersTooLargeError(url: url, limit: .bytes(limit))
    }
    if message == "Out of memory" { return ResponseHeadersTooLargeError(url: url, limit: .bytes(102_400)) }
    return nil
}

/// The delegate of a session the requester made: collects each task's body (counting bytes
/// as they arrive), enforces the limits, and applies the redirect rules.
///
/// Per-task state lives in a lock-guarded table; everything else is immutable, so the
/// delegate is `Sendable`.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let security: SessionSecurity
    private let transfers = LockedValue<[Int: Transfer]>([:])

    init(security: SessionSecurity) {
        self.security = security
    }

    /// Runs one data task to its end.
    func run(_ request: URLRequest, _ transfer: Transfer, in session: URLSession) async throws -> (Data, URLResponse) {
        // The task once it has been resumed (it is only ever cancelled after that), and
        // whether the caller was cancelled.
        let started = LockedValue<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))
        // FoundationNetworking hops synchronously onto the session's work queue when a task is
        // created or resumed. Doing that on a Dispatch thread keeps Swift's few cooperative
        // threads from ever waiting on a busy session.
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    if started.get().cancelled {
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    let task = session.dataTask(with: request)
                    var transfer = transfer
                    transfer.continuation = continuation
                    self.transfers.withLock { $0[task.taskIdentifier] = transfer }
                    task.resume()
                    let cancelled = started.withLock { state -> Bool in
                        state.task = task
                        return state.cancelled
                    }
                    if cancelled { self.cancel(task, in: session) }
                }
            }
        } onCancel: {
            let task = started.withLock { state -> URLSessionDataTask? in
                state.cancelled = true
                return state.task
            }
            if let task { self.cancel(task, in: session) }
        }
    }

    /// Answers the caller with `CancellationError` at once and asks for the task to be
    /// cancelled, from any thread: the cancellation itself runs on the session's delegate queue
    /// (see ``cancelRunning(_:)``), which a busy session can hold up.
    private func cancel(_ task: URLSessionTask, in session: URLSession) {
        let (first, continuation) = transfers.withLock {
            transfers -> (Bool, CheckedContinuation<(Data, URLResponse), any Error>?) in
            guard var transfer = transfers[task.taskIdentifier], !transfer.cancelRequested else { return (false, nil) }
            let continuation = transfer.continuation
            transfer.cancelRequested = true
            transfer.continuation = nil
            transfer.data = Data()
            transfers[task.taskIdentifier] = transfer
            return (true, continuation)
        }
        continuation?.resume(throwing: CancellationError())
        if first { session.delegateQueue.addOperation { self.cancelRunning(task) } }
    }

    /// Cancels the task if URLSession has not completed it yet. Runs on the session's (serial)
    /// delegate queue only.
    ///
    /// FoundationNetworking (Swift 6.3) traps ("Trying to access a behaviour for a task that in
    /// not in the registry") when a cancellation races the task's completion: `cancel()`
    /// marks the task on its work queue, then finishes on that queue later, and by then the
    /// completion may have been delivered and the task removed from the session's registry.
    /// The removal is queued only after the delegate has been told of the completion, on this
    /// queue. So a cancellation issued here, for a task whose completion this delegate has not
    /// seen, and waited for before this queue moves on, always finishes while the task is
    /// still registered.
    private func cancelRunning(_ task: URLSessionTask) {
        let running = transfers.withLock { transfers -> Bool in
            guard var transfer = transfers[task.taskIdentifier], !transfer.cancelIssued else { return false }
            transfer.cancelRequested = true
            transfer.cancelIssued = true
            transfers[task.taskIdentifier] = transfer
            return true
        }
        guard running else { return }
        task.cancel()
        Self.waitForCancellation(of: task)
    }

    /// Waits until the task's work queue has finished what `cancel()` queued on it.
    ///
    /// FoundationNetworking's `priority` getter runs synchronously on the task's serial work
    /// queue, behind the rest of the cancellation. Apple's URLSession needs no wait.
    fileprivate static func waitForCancellation(of task: URLSessionTask) {
        #if canImport(FoundationNetworking)
            _ = task.priority
        #endif
    }

    /// Answers the caller with `error` at once and cancels the task; later callbacks for it
    /// find the caller answered and do nothing. Runs on the delegate queue (every callback does).
    private func fail(_ task: URLSessionTask, with error: any Error) {
        guard let (continuation, _, _) = takeContinuation(of: task) else { return }
        cancelRunning(task)
        continuation.resume(throwing: error)
    }

    /// Takes the caller's continuation out of the task's entry, with the body and response so
    /// far, so the caller is answered exactly once; later callbacks find none and do nothing.
    private func takeContinuation(of task: URLSessionTask)
        -> (CheckedContinuation<(Data, URLResponse), any Error>, Data, URLResponse?)?
    {
        transfers.withLock { transfers in
            guard var transfer = transfers[task.taskIdentifier], let continuation = transfer.continuation else {
                return nil
            }
            let taken = (continuation, transfer.data, transfer.response)
            transfer.continuation = nil
            transfer.data = Data()
            transfers[task.taskIdentifier] = transfer
            return taken
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let refusal = transfers.withLock { transfers -> (any Error)? in
            transfers[dataTask.taskIdentifier]?.response = response
            return transfers[dataTask.taskIdentifier]?.refusal(of: response)
        }
        // FoundationNetworking ignores the disposition (it cannot pause libcurl), so a refused
        // response is also cancelled and answered here.
        completionHandler(refusal == nil ? .allow : .cancel)
        if let refusal { fail(dataTask, with: refusal) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Past the limit the caller is answered at once, not when URLSession finishes tearing
        // the transfer down: a server pushing an endless body keeps the callbacks coming.
        let overflow = transfers.withLock { transfers -> ResponseBodyTooLargeError? in
            guard var transfer = transfers[dataTask.taskIdentifier], transfer.continuation != nil else { return nil }
            if let limit = transfer.maxBytes, transfer.data.count + data.count > limit {
                return ResponseBodyTooLargeError(url: transfer.url, limit: limit)
            }
            // Take the entry out while appending so the Data buffer is uniquely referenced.
            transfers[dataTask.taskIdentifier] = nil
            transfer.data.append(data)
            transfers[dataTask.taskIdentifier] = transfer
            return nil
        }
        if let overflow { fail(dataTask, with: overflow) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }),
            let continuation = transfer.continuation
        else { return }
        if let error {
            if let limit = headerLimitError(error, url: transfer.url, responseArrived: transfer.response != nil) {
                continuation.resume(throwing: limit)
            } else {
                let cancelled = (error as? URLError)?.code == .cancelled
                continuation.resume(throwing: cancelled ? CancellationError() : error)
            }
        } else if let response = transfer.response ?? task.response {
            continuation.resume(returning: (transfer.data, response))
        } else {
            continuation.resume(throwing: URLError(.badServerResponse))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        // Before the completion, on this queue: the exchange reads them once answered.
        transfers.withLock { $0[task.taskIdentifier]?.metrics }?.withLock { $0 = TransferMetrics(metrics) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // A task being cancelled gets no answer: its cancellation, queued on this queue behind
        // this callback or done already, completes it (see RedirectGate for why an answer must
        // not follow a cancellation). Every task has its transfer until it completes; one
        // without is not followed.
        let decision = transfers.withLock { transfers -> RedirectDecision? in
            guard transfers[task.taskIdentifier]?.cancelRequested != true else { return nil }
            return transfers[task.taskIdentifier]?.redirect(after: response) ?? .stop
        }
        guard let decision, task.state == .running else { return }
        decision.answer(completionHandler) { fail(task, with: $0) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
            // The whole 401 (or 407) has arrived by now: every chunk was queued to this
            // delegate before the challenge. Answer with it; cancelling the challenge then
            // cancels the task, whose completion finds the caller answered.
            if let (continuation, data, response) = takeContinuation(of: task) {
                if let response {
                    continuation.resume(returning: (data, response))
                } else {
                    continuation.resume(throwing: URLError(.userAuthenticationRequired))
                }
            }
            // The answer cancels the task at once, on this queue: no other cancellation follows,
            // and this queue waits for it as for its own (see cancelRunning(_:)).
            transfers.withLock { transfers in
                transfers[task.taskIdentifier]?.cancelRequested = true
                transfers[task.taskIdentifier]?.cancelIssued = true
            }
            completionHandler(.cancelAuthenticationChallenge, nil)
            Self.waitForCancellation(of: task)
        #else
            // Apple platforms: URLSessionAppleSecurity.swift (type-checked on Linux by Tools/AppleStandIns).
            let url = task.currentRequest?.url ?? task.originalRequest?.url ?? URL(fileURLWithPath: "/")
            if let refusal = AppleSessionSecurity.answer(
                challenge, url: url, trust: security.trust, proxyCredentials: security.proxyCredentials,
                handling: security.challenges, completionHandler: completionHandler)
            {
                fail(task, with: refusal)
            }
        #endif
    }
}

/// The per-task delegate for a caller's session: redirect rules, challenges and the limits
/// that can be checked when the response arrives. The body is checked by the engine once
/// it has arrived.
private final class TaskDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let transfer: LockedValue<Transfer>

    private init(_ transfer: Transfer) {
        self.transfer = LockedValue(transfer)
    }

    static func run(_ request: URLRequest, _ transfer: Transfer, in session: URLSession) async throws
        -> (Data, URLResponse)
    {
        let delegate = TaskDelegate(transfer)
        do {
            let (data, response) = try await session.data(for: request, delegate: delegate)
            if let error = delegate.transfer.get().failure { throw error }
            if let limit = transfer.maxBytes, data.count > limit {
                throw ResponseBodyTooLargeError(url: transfer.url, limit: limit)
            }
            return (data, response)
        } catch {
            let state = delegate.transfer.get()
            if let failure = state.failure { throw failure }
            if state.challenged, let response = state.response { return (Data(), response) }
            if let limit = headerLimitError(error, url: transfer.url, responseArrived: state.response != nil) {
                throw limit
            }
            if (error as? URLError)?.code == .cancelled { throw CancellationError() }
            throw error
        }
    }

    private func fail(_ task: URLSessionTask, with error: any Error) {
        let now = transfer.withLock { transfer -> Bool in
            transfer.failure = transfer.failure ?? error
            return RedirectGate.requestCancel(&transfer)
        }
        if now { task.cancel() }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let refusal = transfer.withLock { transfer -> (any Error)? in
            transfer.response = response
            return transfer.refusal(of: response)
        }
        completionHandler(refusal == nil ? .allow : .cancel)
        if let refusal { fail(dataTask, with: refusal) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        transfer.get().metrics?.withLock { $0 = TransferMetrics(metrics) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let decision = transfer.withLock { transfer -> RedirectDecision? in
            guard RedirectGate.beginAnswer(&transfer) else { return nil }
            return transfer.redirect(after: response)
        }
        // URLSession's own cancellation (of the calling task) is not gated: the state check
        // narrows its window (see RedirectGate).
        guard let decision, task.state == .running else { return }
        decision.answer(completionHandler) { fail(task, with: $0) }
        if transfer.withLock({ RedirectGate.endAnswer(&$0) }) { task.cancel() }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
            // As in SessionDelegate, but the body stays inside URLSession's buffer: the caller
            // gets the 401's status and headers with an empty body.
            transfer.withLock { $0.challenged = true }
            completionHandler(.cancelAuthenticationChallenge, nil)
        #else
            completionHandler(appleDisposition, nil)
        #endif
    }
}
