import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request that got no HTTP response: the host was not found, the connection was refused,
/// reset or timed out, TLS or the proxy failed, or redirects went on too long.
///
/// Every requester Halley ships throws it for these, with the same ``code`` for the same
/// failure, so a program can tell them apart without knowing which requester ran; the
/// engine reports it as ``HalleyError/Code/transport`` (``HalleyError/Code/timeout`` for
/// ``Code/timedOut``) with this error as ``HalleyError/underlying``. Its
/// ``description`` is one sentence naming the host and, where there is something to do,
/// what.
///
/// ```swift
/// do {
///     _ = try await manager.resource(from: URL(string: "https://localhost:8443/")!)
/// } catch let error as HalleyError {
///     switch error.transportError?.code {
///     case .hostNotFound?: print("check the address")
///     case .untrustedCertificate?: print(error.transportError?.tlsError?.detail ?? "")
///     default: print(error.localizedDescription)
///     }
/// }
/// ```
///
/// A requester of your own can throw it too, or throw `URLError` and `POSIXError` values,
/// which the engine reads into the same codes (``init(classifying:url:)``).
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. Open for new codes, so switch with a `default`.
    ///
    /// The TLS codes are ``TLSError/Kind``'s, by the same names: `Code(tlsKind)` is the code of
    /// any kind, future ones included.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code of a TLS failure: the kind's own name.
        public init(_ kind: TLSError.Kind) { rawValue = kind.rawValue }

        /// The host name does not resolve (DNS).
        public static let hostNotFound = Code(rawValue: "hostNotFound")
        /// The host answered that nothing listens on the port.
        public static let connectionRefused = Code(rawValue: "connectionRefused")
        /// The host or its network cannot be reached, or this machine has no network.
        public static let hostUnreachable = Code(rawValue: "hostUnreachable")
        /// The connection was reset or closed before the whole response arrived.
        public static let connectionReset = Code(rawValue: "connectionReset")
        /// No response within the time limit of the attempt.
        public static let timedOut = Code(rawValue: "timedOut")
        /// The server's certificate does not chain to a trusted CA (``TLSError/Kind/untrustedCertificate``).
        public static let untrustedCertificate = Code(.untrustedCertificate)
        /// The server's certificate has expired or is not valid yet (``TLSError/Kind/expiredCertificate``).
        public static let expiredCertificate = Code(.expiredCertificate)
        /// The server's certificate is for another host name (``TLSError/Kind/hostNameMismatch``).
        public static let hostNameMismatch = Code(.hostNameMismatch)
        /// The server's key is none of the pinned keys (``TLSError/Kind/pinnedKeyMismatch``).
        public static let pinnedKeyMismatch = Code(.pinnedKeyMismatch)
        /// The server wants a client certificate (``TLSError/Kind/clientCertificateRequired``).
        public static let clientCertificateRequired = Code(.clientCertificateRequired)
        /// The server and the client share no TLS version (``TLSError/Kind/protocolVersion``).
        public static let tlsProtocolVersion = Code(.protocolVersion)
        /// Any other TLS handshake failure (``TLSError/Kind/handshakeFailed``).
        public static let tlsHandshakeFailed = Code(.handshakeFailed)
        /// The proxy failed or refused; see ``TransportError/proxyError``.
        public static let proxyFailed = Code(rawValue: "proxyFailed")
        /// More redirects in a row than the requester follows; see ``TransportError/redirectError``.
        public static let tooManyRedirects = Code(rawValue: "tooManyRedirects")
        /// A redirect to another scheme or to something that is not a URL, which is not followed.
        public static let redirectRefused = Code(rawValue: "redirectRefused")
        /// The server's answer is not HTTP.
        public static let badResponse = Code(rawValue: "badResponse")
        /// Any other failure; ``TransportError/detail`` has the transport's words.
        public static let other = Code(rawValue: "other")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// The host the request went to (for ``Code/proxyFailed``, still the origin's; the
    /// proxy is ``ProxyError/proxy``).
    public let host: String
    /// The URL being requested (the redirect's target, when a redirect failed).
    public let url: URL
    /// The transport's own words (libcurl's message, URLSession's description), or empty.
    public let detail: String
    /// The error the transport gave, kept for code: a ``TLSError``, ``ProxyError``,
    /// ``RedirectError``, `URLError`, `POSIXError`, or another requester's own error.
    public let underlying: (any Error)?
    /// The time limit that passed, for ``Code/timedOut``, when the requester knows it.
    public let limit: Duration?

    /// Creates the error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - url: The URL being requested; ``host`` is its host.
    ///   - detail: The transport's own words, shown in parentheses when they add something.
    ///   - underlying: The original error.
    ///   - limit: For ``Code/timedOut``, the limit that passed.
    public init(code: Code, url: URL, detail: String = "", underlying: (any Error)? = nil, limit: Duration? = nil) {
        self.code = code
        self.url = url
        host = url.host ?? url.absoluteString
        self.detail = detail
        self.underlying = underlying
        self.limit = limit
    }

    /// The TLS failure, for the TLS codes.
    public var tlsError: TLSError? { underlying as? TLSError }
    /// The proxy's failure, for ``Code/proxyFailed``.
    public var proxyError: ProxyError? { underlying as? ProxyError }
    /// The refused redirect, for ``Code/tooManyRedirects`` and ``Code/redirectRefused``.
    public var redirectError: RedirectError? { underlying as? RedirectError }

    /// The host with its port when the URL names one: `127.0.0.1:8080`, `api.example.com`.
    var hostAndPort: String {
        guard let port = url.port else { return host }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// What happened, naming the host, without advice: one clause.
    public var summary: String {
        if let tlsError { return tlsError.summary }
        if let proxyError { return proxyError.description }
        if let redirectError { return redirectError.description }
        if let kind = tlsKind { return TLSError(kind: kind, url: url, detail: detail).summary }
        switch code {
        case .hostNotFound:
            return "the host name \(host) could not be resolved"
        case .connectionRefused:
            return "\(hostAndPort) refused the connection"
        case .hostUnreachable:
            return "\(hostAndPort) could not be reached" + parenthesized(detail)
        case .connectionReset:
            return "the connection to \(hostAndPort) was closed before the whole response arrived"
                + parenthesized(detail)
        case .timedOut:
            return "no response from \(hostAndPort)" + (limit.map { " within \($0.spoken)" } ?? " in time")
        case .badResponse:
            return "\(hostAndPort) did not answer in HTTP" + parenthesized(detail)
        case .tooManyRedirects:
            return "\(hostAndPort) redirected too many times" + parenthesized(detail)
        case .redirectRefused:
            return "a redirect from \(hostAndPort) was not followed" + parenthesized(detail)
        case .proxyFailed:
            return "the proxy for \(url.absoluteString) failed" + parenthesized(detail)
        default:
            return "the request to \(hostAndPort) failed" + parenthesized(detail)
        }
    }

    /// The TLS failure's kind, for the TLS codes.
    public var tlsKind: TLSError.Kind? {
        if let tlsError { return tlsError.kind }
        let kind = TLSError.Kind(rawValue: code.rawValue)
        return Self.tlsKinds.contains(kind) ? kind : nil
    }

    /// The kinds of ``TLSError`` this version knows, whose names are TLS codes.
    private static let tlsKinds: Set<TLSError.Kind> = [
        .untrustedCertificate, .expiredCertificate, .hostNameMismatch, .pinnedKeyMismatch, .clientCertificateRequired,
        .protocolVersion, .handshakeFailed,
    ]

    /// What to do about it, in the library's terms, when there is something to do.
    public var advice: String? {
        if let kind = tlsKind { return TLSError(kind: kind, url: url, detail: detail).advice }
        switch code {
        case .hostNotFound: return "check the URL's host name and the network's DNS"
        case .connectionRefused: return "check that the server is running and listens on that port"
        default: return nil
        }
    }

    /// `<summary>; <advice>`: one sentence naming the host and what to do.
    public var description: String {
        advice.map { "\(summary); \($0)" } ?? summary
    }

    private func parenthesized(_ text: String) -> String {
        text.isEmpty ? "" : " (\(text))"
    }
}

extension TransportError: PermanentTransportError {
    /// A refused certificate or an unusable proxy setting happens again on every attempt;
    /// a host not found, a refused or reset connection and a timeout may not.
    package var isPermanent: Bool {
        (underlying as? any PermanentTransportError)?.isPermanent == true
    }
}

extension TransportError {
    /// Reads what a transport threw into the shared vocabulary: a ``TransportError`` as it
    /// is, a ``TLSError``, ``ProxyError`` or ``RedirectError`` under its code, and `URLError`
    /// and `POSIXError` codes as the failure they name. `nil` for anything else (a
    /// requester's own error type, a limit, a cancellation), which the engine passes on
    /// unchanged.
    ///
    /// ```swift
    /// let error = TransportError(classifying: URLError(.cannotFindHost), url: URL(string: "https://nosuch.invalid/")!)
    /// error?.code   // .hostNotFound
    /// ```
    public init?(classifying error: any Error, url: URL) {
        switch error {
        case let error as TransportError:
            self = error
        case let error as TLSError:
            self.init(code: Code(error.kind), url: error.url, detail: error.detail, underlying: error)
        case let error as ProxyError:
            self.init(code: .proxyFailed, url: error.url, detail: error.detail, underlying: error)
        case let error as RedirectError:
            let code: Code
            if case .tooManyRedirects = error.reason { code = .tooManyRedirects } else { code = .redirectRefused }
            self.init(code: code, url: error.url, underlying: error)
        case let error as URLError:
            guard let code = Self.curlCode(of: error) ?? Self.code(of: error) else { return nil }
            let detail = (error.userInfo[NSLocalizedDescriptionKey] as? String) ?? ""
            self.init(code: code, url: url, detail: detail, underlying: error)
        case let error as POSIXError:
            guard let code = Self.code(ofErrno: error.code.rawValue) else { return nil }
            self.init(code: code, url: url, detail: String(cString: strerror(error.code.rawValue)), underlying: error)
        default:
            return nil
        }
    }

    /// Runs a requester's exchange and throws its TLS, proxy and redirect refusals as
    /// ``TransportError``s, the vocabulary every requester answers in; any other error passes
    /// as it is.
    static func classifyingRefusals(
        at url: @autoclosure () -> URL, _ exchange: () async throws -> ResourceResponse
    ) async throws -> ResourceResponse {
        do {
            return try await exchange()
        } catch let error where error is TLSError || error is ProxyError || error is RedirectError {
            throw TransportError(classifying: error, url: url()) ?? error
        }
    }

    /// The code of a `URLError`; `nil` for cancellation and for errors that are not the
    /// transport's (a malformed or unsupported URL).
    static func code(of error: URLError) -> Code? {
        switch error.code {
        case .cannotFindHost, .dnsLookupFailed: return .hostNotFound
        case .cannotConnectToHost: return .connectionRefused
        case .notConnectedToInternet, .internationalRoamingOff, .dataNotAllowed: return .hostUnreachable
        case .networkConnectionLost: return .connectionReset
        case .timedOut: return .timedOut
        case .badServerResponse, .cannotParseResponse: return .badResponse
        case .httpTooManyRedirects: return .tooManyRedirects
        case .redirectToNonExistentLocation: return .redirectRefused
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot: return .untrustedCertificate
        case .serverCertificateHasBadDate, .serverCertificateNotYetValid: return .expiredCertificate
        case .clientCertificateRequired, .clientCertificateRejected: return .clientCertificateRequired
        case .secureConnectionFailed: return .tlsHandshakeFailed
        case .cancelled, .badURL, .unsupportedURL, .userCancelledAuthentication: return nil
        default: return .other
        }
    }

    /// The code of a `URLError` FoundationNetworking made from a libcurl failure, as
    /// ``CurlRequester`` reads the same failure: it reports several as `.unknown`, with the
    /// CURLcode in `userInfo` or only libcurl's message; `nil` when neither says.
    static func curlCode(of error: URLError) -> Code? {
        guard let curlCode = error.userInfo["CURLcode"] as? Int else {
            guard error.code == .unknown, let message = error.userInfo[NSLocalizedDescriptionKey] as? String else {
                return nil
            }
            let ended = [
                "transfer closed with", "Recv failure", "Send failure", "Empty reply from server",
                "Failure when receiving data", "Connection reset", "HTTP/2 stream",
            ]
            return ended.contains { message.hasPrefix($0) } ? .connectionReset : nil
        }
        switch curlCode {
        case 6: return .hostNotFound  // CURLE_COULDNT_RESOLVE_HOST
        case 7: return .connectionRefused  // CURLE_COULDNT_CONNECT
        case 8: return .badResponse  // CURLE_WEIRD_SERVER_REPLY
        case 28: return .timedOut  // CURLE_OPERATION_TIMEDOUT
        // CURLE_HTTP2, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_SEND_ERROR,
        // CURLE_RECV_ERROR, CURLE_HTTP2_STREAM: the connection ended before the response did.
        case 16, 18, 52, 55, 56, 92: return .connectionReset
        default: return nil
        }
    }

    /// The code of a socket `errno`, `nil` when it names no transport failure.
    static func code(ofErrno value: Int32) -> Code? {
        switch value {
        case ECONNREFUSED: return .connectionRefused
        case ECONNRESET, EPIPE, ECONNABORTED: return .connectionReset
        case ETIMEDOUT: return .timedOut
        case EHOSTUNREACH, ENETUNREACH, ENETDOWN, EHOSTDOWN: return .hostUnreachable
        default: return nil
        }
    }
}

extension Duration {
    /// How people say a limit: `250 ms`, `2 s`, `1.5 s`, `90 s`.
    package var spoken: String {
        let (seconds, attoseconds) = components
        // Whole seconds where milliseconds would not fit in 64 bits (a limit meaning "none").
        guard let milliseconds = wholeMilliseconds else { return "\(seconds) s" }
        if milliseconds < 1000 {
            if milliseconds == 0 && attoseconds > 0 {
                return "\(attoseconds / 1_000_000_000_000) µs"
            }
            return "\(milliseconds) ms"
        }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        var text = String(format: "%.3f", Double(milliseconds) / 1000)
        while text.hasSuffix("0") { text.removeLast() }
        return text + " s"
    }
}
