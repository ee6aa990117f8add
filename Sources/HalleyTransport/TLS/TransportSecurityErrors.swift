import Foundation

/// Why a TLS connection could not be made: the server's certificate was refused, or the
/// handshake failed. Requesters throw it inside a ``TransportError`` whose code is the kind's
/// (``TransportError/Code/init(_:)``), so the reason reads the same whichever requester ran;
/// the engine reports it as ``HalleyError/Code/transport`` and does not retry it (the next
/// attempt would meet the same certificate).
///
/// ```swift
/// do {
///     _ = try await CurlRequester().response(for: ResourceRequest(url: URL(string: "https://localhost:8443/")!))
/// } catch let error as TransportError where error.code == .untrustedCertificate {
///     print(error.tlsError?.detail ?? "")   // SSL certificate problem: unable to get local issuer certificate
///     print(error)   // the certificate of localhost is not trusted (...); give its CA in TLSConfiguration.trustRoots
/// }
/// ```
public struct TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. Open for new kinds, so switch with a `default`.
    public struct Kind: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The kind's stable name.
        public let rawValue: String
        /// Creates a kind from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The certificate does not chain to a trusted CA (a private CA, a self-signed
        /// certificate, a missing intermediate).
        public static let untrustedCertificate = Kind(rawValue: "untrustedCertificate")
        /// The certificate has expired, or is not valid yet.
        public static let expiredCertificate = Kind(rawValue: "expiredCertificate")
        /// The certificate does not name the host the request went to.
        public static let hostNameMismatch = Kind(rawValue: "hostNameMismatch")
        /// The server's public key is none of ``TLSConfiguration/pinnedKeys``.
        public static let pinnedKeyMismatch = Kind(rawValue: "pinnedKeyMismatch")
        /// The server asked for a client certificate and none was given, or it refused the
        /// one given.
        public static let clientCertificateRequired = Kind(rawValue: "clientCertificateRequired")
        /// The server and the client share no TLS version (see
        /// ``TLSConfiguration/minimumVersion``).
        public static let protocolVersion = Kind(rawValue: "protocolVersion")
        /// Any other handshake failure.
        public static let handshakeFailed = Kind(rawValue: "handshakeFailed")

        /// The kind's name.
        public var description: String { rawValue }
    }

    /// What went wrong.
    public let kind: Kind
    /// The host the connection was for.
    public let host: String
    /// The URL being requested.
    public let url: URL
    /// The TLS library's own words, e.g. `SSL certificate problem: unable to get local issuer certificate`.
    public let detail: String

    /// Creates the error.
    public init(kind: Kind, url: URL, detail: String) {
        self.kind = kind
        self.url = url
        host = url.host ?? url.absoluteString
        self.detail = detail
    }

    /// One sentence naming the host, what failed, and what to do.
    public var description: String {
        advice.map { "\(summary); \($0)" } ?? summary
    }

    /// What failed, naming the host, with the TLS library's reason.
    var summary: String {
        var reason = detail
        // libcurl's prefix says nothing the sentence does not.
        for prefix in ["SSL certificate problem: ", "SSL: "] where reason.hasPrefix(prefix) {
            reason.removeFirst(prefix.count)
        }
        let why = reason.isEmpty ? "" : " (\(reason))"
        switch kind {
        case .untrustedCertificate: return "the certificate of \(host) is not trusted\(why)"
        case .expiredCertificate: return "the certificate of \(host) has expired or is not valid yet\(why)"
        case .hostNameMismatch: return "the certificate of \(host) is for another host name\(why)"
        case .pinnedKeyMismatch: return "the public key of \(host) is not one of the pinned keys\(why)"
        case .clientCertificateRequired: return "\(host) requires a client certificate\(why)"
        case .protocolVersion: return "\(host) and this client share no TLS version\(why)"
        default: return "the TLS handshake with \(host) failed\(why)"
        }
    }

    /// What to do, in the library's terms (the `halley` tool names its options instead).
    var advice: String? {
        switch kind {
        case .untrustedCertificate: return "give its CA in TLSConfiguration.trustRoots"
        case .clientCertificateRequired: return "give one in TLSConfiguration.clientIdentity"
        case .protocolVersion: return "check TLSConfiguration.minimumVersion"
        case .hostNameMismatch: return "use the host name the certificate names"
        default: return nil
        }
    }
}

/// Why a request could not go through its proxy, or would have sent credentials through it
/// in clear; see ``ProxyConfiguration``. Requesters throw it inside a ``TransportError`` with
/// the code ``TransportError/Code/proxyFailed``; the engine reports it as
/// ``HalleyError/Code/transport``.
///
/// ```swift
/// let requester = try CurlRequester(proxy: ProxyConfiguration(url: URL(string: "http://127.0.0.1:1")!))
/// do {
///     _ = try await requester.response(for: ResourceRequest(url: URL(string: "https://api.example.com/")!))
/// } catch let error as TransportError where error.code == .proxyFailed {
///     print(error)   // could not connect to the proxy 127.0.0.1:1 for https://api.example.com/ (...)
/// }
/// ```
public struct ProxyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The proxy's host name was not found.
        case cannotResolve
        /// The proxy refused the connection or could not be reached.
        case cannotConnect
        /// The proxy answered 407: its credentials are missing or wrong.
        case authenticationRequired
        /// The proxy refused to open a tunnel (`CONNECT`) to the origin with this status.
        case tunnelRefused(status: Int)
        /// The request would have sent these credential headers in clear through the proxy
        /// (a plain `http` URL); nothing was sent. See
        /// ``ProxyConfiguration/allowsCredentialsOverPlainHTTP``.
        case credentialsInClear(headers: [String])
        /// A proxy URL (given, or read from an environment variable) is not usable.
        case invalidProxyURL(String)
    }

    /// The proxy as `host:port`, never with its credentials.
    public let proxy: String
    /// The URL being requested.
    public let url: URL
    /// What went wrong.
    public let reason: Reason
    /// The transport's own words, when it gave some.
    public let detail: String

    /// Creates the error.
    public init(proxy: String, url: URL, reason: Reason, detail: String = "") {
        self.proxy = proxy
        self.url = url
        self.reason = reason
        self.detail = detail
    }

    /// One sentence naming the proxy, the URL and what failed.
    public var description: String {
        let why = detail.isEmpty ? "" : " (\(detail))"
        let target = url.absoluteString
        switch reason {
        case .cannotResolve:
            return "could not resolve the proxy \(proxy) for \(target)\(why)"
        case .cannotConnect:
            return "could not connect to the proxy \(proxy) for \(target)\(why)"
        case .authenticationRequired:
            return "the proxy \(proxy) requires credentials for \(target) (HTTP 407); give them in the proxy URL "
                + "or ProxyConfiguration"
        case .tunnelRefused(let status):
            return "the proxy \(proxy) refused to open a tunnel to \(target) (HTTP \(status))\(why)"
        case .credentialsInClear(let headers):
            return "refusing to send \(headers.joined(separator: ", ")) in clear through the proxy \(proxy) for "
                + "\(target); use https, or leave the host out of the proxy with NO_PROXY"
        case .invalidProxyURL(let text):
            return "the proxy \(text) for \(target) is not usable\(why)"
        }
    }
}

/// A requester was given a setting it cannot honour on this platform; nothing was sent.
/// Halley never ignores a TLS or proxy setting: ``URLSessionRequester`` on Linux, for one,
/// cannot present a client certificate, and says so instead of connecting without it.
///
/// ```swift
/// let requester = URLSessionRequester(tls: TLSConfiguration(trustRoots: .only([.file("ca.pem")])))
/// do {
///     _ = try await requester.response(for: ResourceRequest(url: URL(string: "https://localhost:8443/")!))
/// } catch let error as UnsupportedSettingsError {
///     print(error.settings)   // ["trust roots (only the given CA certificates)"]
/// }
/// ```
public struct UnsupportedSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The requester, e.g. `URLSessionRequester on Linux`.
    public let requester: String
    /// Every setting it cannot honour.
    public let settings: [String]
    /// What to do instead.
    public let advice: String

    /// Creates the error.
    public init(requester: String, settings: [String], advice: String) {
        self.requester = requester
        self.settings = settings
        self.advice = advice
    }

    /// `<requester> cannot honour <settings>; <advice>`.
    public var description: String {
        "\(requester) cannot honour \(settings.joined(separator: ", ")); \(advice)"
    }
}

/// Errors that another attempt cannot cure: a refused certificate, a configuration that
/// cannot be used. The engine does not retry them.
package protocol PermanentTransportError: Error {
    /// Whether this error is certain to happen again.
    var isPermanent: Bool { get }
}

extension TLSError: PermanentTransportError {
    /// Every kind but a generic handshake failure, which a flaky middlebox can cause.
    package var isPermanent: Bool { kind != .handshakeFailed }
}

extension TLSConfigurationError: PermanentTransportError {
    package var isPermanent: Bool { true }
}

extension UnsupportedSettingsError: PermanentTransportError {
    package var isPermanent: Bool { true }
}

extension ProxyError: PermanentTransportError {
    /// A refusal to send credentials, a bad proxy URL or missing credentials; a proxy that is
    /// down may come back.
    package var isPermanent: Bool {
        switch reason {
        case .credentialsInClear, .invalidProxyURL, .authenticationRequired: return true
        default: return false
        }
    }
}
