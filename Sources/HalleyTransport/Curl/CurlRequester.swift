import Foundation
import HalleyHAL

/// Sends requests through libcurl, loaded at run time: the default requester on Linux.
///
/// libcurl is already on every Linux machine that runs FoundationNetworking (which links
/// `libcurl.so.4`); Halley opens it with `dlopen`, so there is no package, header or set-up
/// step. When it cannot be loaded, `init` throws ``CurlUnavailableError`` and
/// ``DefaultRequester`` falls back to ``URLSessionRequester``.
///
/// What it does:
///
/// - **One thread, one multi handle per requester.** Transfers run concurrently on a
///   dedicated thread that sleeps in `curl_multi_poll` while it waits, so awaiting a slow
///   response costs no CPU. A ``ResourceManager`` call through the requester runs its own
///   work on that thread too (`runsCallsOnLoopThread`), so a response reaches the traversal,
///   and the traversal's next request reaches libcurl, without waking another thread; the
///   result comes back to the caller's own executor. Code the call runs for you (observers,
///   header providers) runs there as well: it must not block. Up to
///   `maxConnectionsPerHost` connections per host (64 by default), HTTP/2 multiplexing over
///   TLS where the server offers it, keep-alive connections reused across calls of the same
///   requester.
/// - **Bounded against hostile servers.** The body is counted after content decoding (gzip,
///   deflate, br and zstd are accepted and decoded), and the transfer stops the moment it
///   passes ``ResourceRequest/maxBodyBytes``: an endless body or a gzip bomb costs at most
///   the limit. A declared `Content-Length` over the limit is refused before the body.
///   Header sections over `maxHeaderBytes` or `maxHeaderCount` are
///   ``ResponseHeadersTooLargeError``. ``ResourceRequest/timeout`` bounds each request,
///   redirects included.
/// - **Redirects followed here, not in libcurl.** 301, 302, 303, 307 and 308 are followed up
///   to `maxRedirects` times (then ``TransportError/Code/tooManyRedirects``): 303, and 301/302 after a POST, become
///   a GET without a body; 307 and 308 keep the method and body. A hop to an origin outside
///   ``ResourceRequest/trustedOrigins`` (only the request URL's origin when empty) drops every
///   credential header: `Authorization`, `Cookie`, `Proxy-Authorization`, the requester's
///   `credentialHeaders` and the request's ``ResourceRequest/credentialHeaders``, custom names
///   included. Redirects to other schemes are refused. The response's
///   ``ResourceResponse/url`` is the final URL.
/// - **No cookies, no stored passwords.** libcurl's cookie engine stays off; a `401` is
///   returned as a response at once.
/// - **Cancellation.** Cancelling the calling task removes the transfer from libcurl at once
///   and throws `CancellationError`.
/// - **TLS and proxies.** Every ``TLSConfiguration`` setting (trust roots, client identity,
///   pinned keys, minimum version) and every ``ProxyConfiguration`` rule, the environment's
///   included, is applied by Halley rather than left to libcurl's own environment handling;
///   failures are ``TransportError``s holding a ``TLSError`` or ``ProxyError``. See
///   <doc:TLSAndProxies>.
///
/// Transport failures are ``TransportError``s with the codes ``URLSessionRequester`` gives for
/// the same failures (``TransportError/Code/hostNotFound``, ``TransportError/Code/connectionRefused``,
/// ``TransportError/Code/timedOut``, the TLS kinds, ...), keeping libcurl's message and a
/// `URLError` with its CURLcode underneath, so the engine treats both requesters alike.
///
/// On iOS, tvOS, watchOS and visionOS, which ship no libcurl, the type is unavailable at
/// compile time. On macOS it is never the default (``DefaultRequester`` makes a
/// ``URLSessionRequester``); made explicitly, it uses the system's libcurl, whose TLS library
/// decides what it can honour (see <doc:Platforms>).
///
/// ```swift
/// let requester = try CurlRequester(maxConnectionsPerHost: 16)
/// let manager = ResourceManager(requester: requester)
/// let contact = try await manager.resource(from: URL(string: "https://api.example.com/contacts/1")!)
/// ```
@available(iOS, unavailable, message: "libcurl is not part of iOS; use URLSessionRequester")
@available(tvOS, unavailable, message: "libcurl is not part of tvOS; use URLSessionRequester")
@available(watchOS, unavailable, message: "libcurl is not part of watchOS; use URLSessionRequester")
@available(visionOS, unavailable, message: "libcurl is not part of visionOS; use URLSessionRequester")
public struct CurlRequester: ResourceRequester, Sendable {
    private let owner: EngineOwner
    private let credentialHeaders: Set<String>
    private let maxRedirects: Int
    private let maxHeaderBytes: Int
    private let maxHeaderCount: Int
    /// The proxy rules, the environment already read.
    private let proxy: ProxyConfiguration
    /// The rules name no proxy for either scheme, so every request goes direct: asking them
    /// per request only parses the URL again.
    private let alwaysDirect: Bool
    /// Why the TLS configuration cannot be used, thrown by every request: a
    /// ``TLSConfigurationError``, or an ``UnsupportedSettingsError`` for what this libcurl's
    /// TLS library cannot honour.
    private let tlsFailure: (any Error & Sendable)?
    private let identityNames: (certificate: String, key: String)?
    private let runsCallsOnLoopThread: Bool

    /// Which HTTP version a ``CurlRequester`` asks for.
    public enum HTTPVersion: Sendable, Hashable {
        /// HTTP/2 over TLS where the server offers it (ALPN), HTTP/1.1 otherwise: the default.
        case automatic
        /// HTTP/1.1 only (`curl --http1.1`).
        case http1Only
        /// HTTP/2 over TLS, and over plain HTTP by `Upgrade: h2c` where the server takes it
        /// (`curl --http2`); HTTP/1.1 with servers that speak only that.
        case http2
    }

    /// Methods sent again on a fresh connection when a reused one turns out to hold garbage.
    private static let idempotentMethods: Set<RequestMethod> = [.get, .head, .put, .delete, .options]

    /// Redirects followed in a row before ``TransportError/Code/tooManyRedirects``: 20, as URLSession.
    public static let defaultMaxRedirects = 20

    /// Whether libcurl can be loaded in this process.
    ///
    /// ```swift
    /// let requester: any ResourceRequester = try CurlRequester.isAvailable ? CurlRequester() : URLSessionRequester()
    /// ```
    public static var isAvailable: Bool { CurlLibrary.loadFailure == nil }

    /// libcurl's version line (`libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13 brotli/1.0.9 ...`),
    /// or `nil` when it cannot be loaded.
    ///
    /// ```swift
    /// print(CurlRequester.libraryVersion ?? "no libcurl")
    /// ```
    public static var libraryVersion: String? { CurlLibrary.version }

    /// Creates a requester with its own libcurl multi handle; its thread starts with the
    /// first request and ends when the last copy of the requester goes away.
    ///
    /// ```swift
    /// let requester = try CurlRequester(credentialHeaders: ["authorization", "x-api-key"], maxRedirects: 5)
    /// let privateAPI = try CurlRequester(tls: TLSConfiguration(trustRoots: .systemAnd([.file("ca.pem")])),
    ///                                    proxy: .direct)
    /// ```
    ///
    /// The TLS configuration's files are read now; one that cannot be used makes every
    /// request throw its ``TLSConfigurationError`` before sending anything (call
    /// ``TLSConfiguration/validate()`` first to fail earlier). The proxy environment
    /// variables, for ``ProxyConfiguration/environment``, are read now too.
    ///
    /// - Parameters:
    ///   - maxConnectionsPerHost: Connections open at once to one host (64 by default); more
    ///     transfers wait in libcurl for a free one.
    ///   - credentialHeaders: Header names removed when a redirect leaves the trusted origins,
    ///     in addition to `Authorization`, `Cookie`, `Proxy-Authorization` and each request's own.
    ///   - maxRedirects: Redirects followed in a row (20 by default).
    ///   - maxHeaderBytes: The largest response header section accepted, in bytes.
    ///   - maxHeaderCount: The most response header fields accepted.
    ///   - tls: Trust roots, client certificate, pinned keys, minimum version (see
    ///     ``TLSConfiguration``); the system's defaults unless given.
    ///   - proxy: Which proxy each request goes through (see ``ProxyConfiguration``); the
    ///     environment variables decide unless given.
    ///   - httpVersion: The HTTP version asked for; HTTP/2 over TLS where offered by default.
    ///   - runsCallsOnLoopThread: Whether a ``ResourceManager`` call through this requester
    ///     runs its work (parsing, merging, sending the next requests) on the requester's
    ///     thread, beside libcurl, rather than on Swift's global executor: no thread hand-off
    ///     per request, about a third less CPU per request (see BENCHMARKS.md). Every call of
    ///     the requester then shares that one thread for this work; pass `false` when many
    ///     concurrent calls parse large documents on a machine with cores to spare.
    /// - Throws: ``CurlUnavailableError`` when libcurl (7.68 or later) cannot be loaded.
    public init(
        maxConnectionsPerHost: Int = URLSessionRequester.defaultMaxConnectionsPerHost,
        credentialHeaders: Set<String> = URLSessionRequester.defaultCredentialHeaders,
        maxRedirects: Int = CurlRequester.defaultMaxRedirects,
        maxHeaderBytes: Int = ResponseHeadersTooLargeError.defaultMaxBytes,
        maxHeaderCount: Int = ResponseHeadersTooLargeError.defaultMaxCount,
        tls: TLSConfiguration = .system,
        proxy: ProxyConfiguration = .environment,
        httpVersion: HTTPVersion = .automatic,
        runsCallsOnLoopThread: Bool = true
    ) throws(CurlUnavailableError) {
        // Loaded first: the system bundle's path comes from libcurl.
        try CurlLibrary.load()
        var setup = CurlHandleSetup()
        switch httpVersion {
        case .automatic: setup.httpVersion = CurlABI.Value.httpVersion2TLS
        case .http1Only: setup.httpVersion = CurlABI.Value.httpVersion1
        case .http2: setup.httpVersion = CurlABI.Value.httpVersion2
        }
        let backend = CurlTLSBackend(versionLine: CurlLibrary.version ?? "")
        let unsupported = backend.unsupportedSettings(of: tls)
        if !unsupported.isEmpty {
            tlsFailure = UnsupportedSettingsError(
                requester: "CurlRequester with \(CurlLibrary.version ?? "this libcurl")", settings: unsupported,
                advice: "use a libcurl with OpenSSL or LibreSSL (macOS's own uses LibreSSL unless CURL_SSL_BACKEND "
                    + "selects Secure Transport)")
        } else {
            do {
                // Secure Transport reads no CA directory: the system's CAs go in the bundle.
                let directory = backend.searchesCADirectory ? CurlTLSOptions.hashedSystemDirectory() : nil
                setup.tls = try CurlTLSOptions(tls, systemDirectory: directory)
                tlsFailure = nil
            } catch {
                tlsFailure = error
            }
        }
        identityNames = setup.tls.identityNames
        owner = EngineOwner(engine: try CurlEngine(maxConnectionsPerHost: maxConnectionsPerHost, setup: setup))
        self.credentialHeaders = credentialHeaders
        self.maxRedirects = max(0, maxRedirects)
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.runsCallsOnLoopThread = runsCallsOnLoopThread
        self.proxy = proxy.resolved()
        if case .rules(let rules) = self.proxy.source, rules.http == nil && rules.https == nil {
            alwaysDirect = true
        } else {
            alwaysDirect = false
        }
    }

    /// The requester's loop thread, where a call through it runs its work; `nil` when the
    /// requester was made with `runsCallsOnLoopThread: false`.
    ///
    /// ```swift
    /// let requester = try CurlRequester()
    /// print(requester.preferredTaskExecutor != nil)   // true
    /// ```
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public var preferredTaskExecutor: (any TaskExecutor)? { runsCallsOnLoopThread ? owner.engine : nil }

    /// `true`: libcurl ends each transfer at what is left of ``ResourceRequest/timeout``
    /// (redirects included), so the engine runs no watchdog beside it.
    public var enforcesRequestTimeout: Bool { true }

    /// Sends the request, following redirects.
    ///
    /// ```swift
    /// var request = ResourceRequest(url: URL(string: "https://api.example.com/orders")!, method: .post,
    ///                               headers: ["Content-Type": "application/json"], body: Data(#"{"item": 1}"#.utf8),
    ///                               timeout: .seconds(10))
    /// request.maxBodyBytes = 1_000_000
    /// let response = try await CurlRequester().response(for: request)
    /// print(response.status, response.url, response.body.count)
    /// ```
    ///
    /// - Throws: ``TransportError`` for transport failures (``TransportError/Code/timedOut``
    ///   past ``ResourceRequest/timeout``; TLS, proxy and redirect failures with their
    ///   ``TLSError``, ``ProxyError`` or ``RedirectError`` underneath),
    ///   ``TLSConfigurationError``, ``UnsupportedSettingsError``,
    ///   ``ResponseBodyTooLargeError``, ``ResponseHeadersTooLargeError``, `CancellationError`.
    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        // The URL is parsed only for a refusal's error: libcurl takes the text.
        try await TransportError.classifyingRefusals(at: request.url) { try await exchange(request) }
    }

    /// The request and its redirects; ``response(for:)`` puts proxy and redirect refusals into
    /// the shared vocabulary.
    ///
    /// perf: inlined, as ``perform(_:)`` is, no executor switch of its own;
    /// BENCHMARKS.md, "Why the hot paths look as they do".
    @inline(__always)
    private func exchange(_ request: ResourceRequest) async throws -> ResourceResponse {
        let clock = ContinuousClock()
        let deadline = request.timeout.map { clock.now + $0 }
        guard Self.isHTTP(request.location.text) else {
            throw URLError(.unsupportedURL, userInfo: [NSURLErrorFailingURLErrorKey: request.url])
        }
        if let tlsFailure { throw tlsFailure }
        var chain = RedirectChain(request, credentialHeaders: credentialHeaders, maxRedirects: maxRedirects)
        while true {
            let hop = chain.current
            let route = alwaysDirect ? nil : try proxy.proxy(for: hop.url)
            if let route,
                let refusal = proxy.refusal(
                    url: hop.url, through: route, headers: hop.headers, credentialHeaders: chain.scope.headerNames)
            {
                throw refusal
            }
            var remaining: Duration?
            if let deadline {
                remaining = deadline - clock.now
                if let left = remaining, left <= .zero {
                    throw TransportError(
                        code: .timedOut, url: hop.url, underlying: URLError(.timedOut), limit: request.timeout)
                }
            }
            let (originFields, proxyLines) = hop.curlHeaderFields()
            var job = CurlJob(
                location: hop.location, isHTTPS: Self.isHTTPS(hop.location.text), method: hop.method,
                headerFields: originFields, body: hop.body, timeout: remaining,
                maxBodyBytes: request.maxBodyBytes, maxHeaderBytes: maxHeaderBytes, maxHeaderCount: maxHeaderCount)
            if let route {
                job.proxy = CurlProxy(route)
                job.proxyHeaderLines = proxyLines
            }
            job.identityNames = identityNames
            job.collectsMetrics = request.collectsMetrics
            let reply: CurlReply
            do {
                reply = try await perform(job)
            } catch let stale as CurlStaleConnectionError {
                // Once, and only when sending again cannot repeat a side effect.
                guard Self.idempotentMethods.contains(hop.method) else { throw stale.underlying }
                job.freshConnection = true
                job.timeout = deadline.map { $0 - clock.now }
                do {
                    reply = try await perform(job)
                } catch let again as CurlStaleConnectionError {
                    throw again.underlying
                }
            }
            // Origins do not send 407: through a plain-HTTP proxy it is the proxy's answer.
            if reply.status == 407, let route {
                throw ProxyError(proxy: route.hostAndPort, url: hop.url, reason: .authenticationRequired)
            }
            // The first hop goes where the caller sent it (the engine only gives credentials to
            // trusted origins); the chain checks every later one.
            let headers = reply.headers
            guard try chain.follow(status: reply.status, location: headers["Location"]) else {
                var response = ResourceResponse(
                    status: reply.status, headers: headers, location: hop.location, body: reply.body)
                response.metrics = reply.metrics
                return response
            }
        }
    }

    /// Runs one exchange on the engine; cancelling the calling task cancels it there.
    ///
    /// The transfer itself is what the cancellation names: the engine runs its commands in
    /// order, so a cancellation that comes before the start is seen by the start, with no lock
    /// or state of the call's own.
    @inline(__always)
    private func perform(_ job: CurlJob) async throws -> CurlReply {
        try Task.checkCancellation()
        let engine = owner.engine
        let transfer = CurlTransfer(job: job)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CurlContinuation) in
                transfer.continuation = continuation
                engine.start(transfer)
            }
        } onCancel: {
            engine.cancel(transfer)
        }
    }

    /// Whether the URL text starts with the `http:` or `https:` scheme, in any case.
    private static func isHTTP(_ urlString: String) -> Bool {
        urlString.caseInsensitiveHasPrefix("http:") || isHTTPS(urlString)
    }

    /// Whether the URL text libcurl gets starts with `https:`, in any case: read from the text
    /// rather than `URL.scheme`, which parses the URL again.
    private static func isHTTPS(_ urlString: String) -> Bool { urlString.caseInsensitiveHasPrefix("https:") }
}

extension RedirectChain.Hop {
    /// The fields for libcurl, CR and LF out of them: a value holding them would start a
    /// header or a request of its own. Nearly every request has nothing to clean, and its
    /// fields go as they are: the loop makes their lines only when they differ from those of
    /// the handle's last transfer.
    ///
    /// A `Proxy-Authorization` of the caller's own is kept apart, as a line for the proxy
    /// only: it must never reach an origin (through a proxy, or direct, where there is no
    /// proxy to take it).
    fileprivate func curlHeaderFields() -> (origin: [HeaderFields.Field], proxy: [String]) {
        let fields = headers.fields
        guard fields.contains(where: Self.needsCleaning) else { return (fields, []) }
        var origin: [HeaderFields.Field] = []
        var proxy: [String] = []
        origin.reserveCapacity(fields.count)
        for field in fields {
            var name = field.name
            var value = field.value
            if Self.holdsLineBreakOrColon(name) {
                name = name.filter { $0 != "\r" && $0 != "\n" && $0 != ":" }
            }
            if Self.holdsLineBreak(value) {
                value = String(value.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
            }
            if name.caseInsensitiveEquals("proxy-authorization") {
                proxy.append(CurlTransfer.curlLine(name, value))
            } else {
                origin.append(HeaderFields.Field(name: name, value: value))
            }
        }
        return (origin, proxy)
    }

    /// Whether the field must be cleaned or go to the proxy alone.
    private static func needsCleaning(_ field: HeaderFields.Field) -> Bool {
        holdsLineBreakOrColon(field.name) || holdsLineBreak(field.value)
            || field.name.caseInsensitiveEquals("proxy-authorization")
    }

    private static func holdsLineBreakOrColon(_ name: String) -> Bool {
        holds(name, [13, 10, UInt8(ascii: ":")])
    }

    private static func holdsLineBreak(_ value: String) -> Bool {
        holds(value, [13, 10])
    }

    /// With `memchr`, which reads a long value (an `Accept` list) many bytes at a time.
    ///
    /// perf: not a byte-by-byte search; BENCHMARKS.md, "Why the hot paths look as they do".
    @inline(__always)
    private static func holds(_ text: String, _ bytes: [UInt8]) -> Bool {
        var text = text
        return text.withUTF8 { buffer in
            guard let start = buffer.baseAddress else { return false }
            return bytes.contains { memchr(start, Int32($0), buffer.count) != nil }
        }
    }
}

/// Owns a requester's engine: when the last copy of the requester goes away, the engine's
/// thread is told to stop (no request can be in flight then: each holds the requester).
private final class EngineOwner: Sendable {
    let engine: CurlEngine

    init(engine: CurlEngine) {
        self.engine = engine
    }

    deinit {
        engine.stop()
    }
}

@available(iOS, unavailable, message: "libcurl is not part of iOS; use URLSessionRequester")
@available(tvOS, unavailable, message: "libcurl is not part of tvOS; use URLSessionRequester")
@available(watchOS, unavailable, message: "libcurl is not part of watchOS; use URLSessionRequester")
@available(visionOS, unavailable, message: "libcurl is not part of visionOS; use URLSessionRequester")
extension CurlRequester: CustomStringConvertible {
    /// `CurlRequester(libcurl/7.88.1 ...)`.
    public var description: String { "CurlRequester(\(CurlLibrary.version ?? "libcurl"))" }
}

extension String {
    /// ASCII case-insensitive equality with a lowercase ASCII literal, without allocating.
    func caseInsensitiveEquals(_ lowercase: StaticString) -> Bool {
        caseInsensitiveMatch(lowercase, wholeString: true)
    }

    /// Whether the string starts with a lowercase ASCII literal, in any case.
    func caseInsensitiveHasPrefix(_ lowercase: StaticString) -> Bool {
        caseInsensitiveMatch(lowercase, wholeString: false)
    }

    /// Compared over the UTF-8 buffers by index: the generic `zip` and `elementsEqual` over
    /// the UTF-8 view cost more than the rest of the header lines together.
    private func caseInsensitiveMatch(_ lowercase: StaticString, wholeString: Bool) -> Bool {
        var text = self
        return text.withUTF8 { bytes in
            lowercase.withUTF8Buffer { expected in
                guard wholeString ? bytes.count == expected.count : bytes.count >= expected.count else { return false }
                for index in 0..<expected.count {
                    let byte = bytes[index]
                    if (byte >= 65 && byte <= 90 ? byte + 32 : byte) != expected[index] { return false }
                }
                return true
            }
        }
    }
}
