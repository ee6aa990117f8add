import Foundation
import HalleyHAL

/// Which proxy, if any, a requester sends each request through.
///
/// By default (``environment``) the standard variables decide, read when the requester is
/// made, as curl reads them:
///
/// | variable | for |
/// |---|---|
/// | `http_proxy` (lowercase only) | `http` URLs |
/// | `https_proxy`, else `HTTPS_PROXY` | `https` URLs |
/// | `all_proxy`, else `ALL_PROXY` | either, when the one above is not set |
/// | `no_proxy`, else `NO_PROXY` | hosts that go direct |
///
/// `HTTP_PROXY` in capitals is ignored, as curl ignores it: a CGI program receives a
/// request's `Proxy:` header in that variable, so a client could set it ("httpoxy").
///
/// A proxy is `http://host:port` or `https://host:port` (a value without a scheme is `http`;
/// without a port, 1080 for `http` and 443 for `https`, as curl); user and password in it are
/// the proxy's own credentials, sent to the proxy only (`Proxy-Authorization: Basic`), never
/// to an origin. `NO_PROXY` is a comma-separated list: `*` for every host, a host name (which
/// also covers its sub-domains, with or without a leading dot), an IP address, or an IP
/// range such as `10.0.0.0/8`; ports are ignored.
///
/// ```swift
/// let proxy = ProxyConfiguration(url: URL(string: "http://proxy.internal:3128")!,
///                                credentials: .init(user: "svc", password: "s3cret"),
///                                noProxy: ["localhost", ".internal", "10.0.0.0/8"])
/// let requester = try CurlRequester(proxy: proxy)
/// ```
///
/// An `https` URL goes through the proxy in a `CONNECT` tunnel: the proxy sees the host and
/// port, and the request's headers stay inside TLS. A plain `http` URL is sent to the proxy
/// as it is, headers included, so a request that carries credential headers
/// (`Authorization`, `Cookie`, and the credential headers of the call and the requester) is
/// refused with ``ProxyError/Reason/credentialsInClear(headers:)`` before anything is sent,
/// unless ``allowsCredentialsOverPlainHTTP`` says otherwise.
public struct ProxyConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// A proxy's user name and password: sent to the proxy only.
    public struct Credentials: Sendable, Hashable, CustomStringConvertible {
        /// The user name.
        public var user: String
        /// The password.
        public var password: String

        /// Creates credentials.
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }

        /// The user name, never the password.
        public var description: String { "\(user):<redacted>" }
    }

    /// One proxy: where it is, and the credentials it gets.
    public struct Proxy: Sendable, Hashable, CustomStringConvertible {
        /// `http` or `https`: how the client talks to the proxy itself.
        public let scheme: String
        /// The proxy's host name or address (an IPv6 address without brackets).
        public let host: String
        /// The proxy's port.
        public let port: Int
        /// Its credentials, if any.
        public let credentials: Credentials?

        /// `host:port`, as errors name the proxy (never with its credentials).
        public var hostAndPort: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

        /// `scheme://host:port`, without credentials.
        public var description: String { "\(scheme)://\(hostAndPort)" }

        /// Reads `[scheme://][user[:password]@]host[:port][/]`; `nil` when it is not one.
        init?(parsing text: String, credentials explicit: Credentials? = nil) {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return nil }
            let full = trimmed.contains("://") ? trimmed : "http://" + trimmed
            guard let components = URLComponents(string: full), let scheme = components.scheme?.lowercased(),
                scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
                components.path.isEmpty || components.path == "/", components.query == nil,
                components.fragment == nil
            else { return nil }
            self.scheme = scheme
            self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            port = components.port ?? (scheme == "https" ? 443 : 1080)
            if let explicit {
                credentials = explicit
            } else if let user = components.user, !user.isEmpty {
                credentials = Credentials(user: user, password: components.password ?? "")
            } else {
                credentials = nil
            }
        }
    }

    /// Where the settings come from.
    enum Source: Sendable, Hashable {
        /// The process's environment, read when a requester is made.
        case environment
        /// Rules already read: from the environment or given.
        case rules(Rules)
    }

    /// The proxies per scheme and the hosts that go direct.
    struct Rules: Sendable, Hashable {
        /// The proxy for `http` URLs: its text (for messages) and what it reads as.
        var http: Setting?
        /// The proxy for `https` URLs.
        var https: Setting?
        var noProxy: NoProxyList
        /// Whether the rules were read from environment variables.
        var fromEnvironment: Bool
    }

    /// One proxy setting: where it was given, and the proxy it names (`nil` when it names
    /// none: an error on every request that would use it).
    struct Setting: Sendable, Hashable {
        let origin: String
        let proxy: Proxy?
    }

    let source: Source

    /// Whether a plain `http` request that carries credential headers may go through the
    /// proxy, where the proxy (and the network up to it) can read them. `false` by default:
    /// such a request fails with ``ProxyError/Reason/credentialsInClear(headers:)``.
    public var allowsCredentialsOverPlainHTTP = false

    private init(source: Source) {
        self.source = source
    }

    /// The environment variables decide (see the type's notes): the default.
    public static let environment = ProxyConfiguration(source: .environment)

    /// No proxy, whatever the environment says.
    public static let direct = ProxyConfiguration(
        source: .rules(Rules(http: nil, https: nil, noProxy: NoProxyList([]), fromEnvironment: false)))

    /// Every `http` and `https` request through `url`, except to the hosts of `noProxy`.
    ///
    /// ```swift
    /// let proxy = ProxyConfiguration(url: URL(string: "http://user:pa%40ss@127.0.0.1:3128")!)
    /// ```
    ///
    /// - Parameters:
    ///   - url: `http://host:port` or `https://host:port`; a user and password in it are the
    ///     proxy's credentials (percent-decoded). A URL that is not one is reported by each
    ///     request as ``ProxyError/Reason/invalidProxyURL(_:)``.
    ///   - credentials: The proxy's credentials; replace any in `url`.
    ///   - noProxy: Hosts that go direct (see the type's notes); the environment's `NO_PROXY`
    ///     does not apply.
    public init(url: URL, credentials: Credentials? = nil, noProxy: [String] = []) {
        let setting = Setting(
            origin: Self.redacted(url.absoluteString),
            proxy: Proxy(parsing: url.absoluteString, credentials: credentials))
        source = .rules(Rules(http: setting, https: setting, noProxy: NoProxyList(noProxy), fromEnvironment: false))
    }

    /// The rules the given environment variables make (see the type's notes), read now.
    /// ``environment`` reads the process's own when a requester is made.
    ///
    /// ```swift
    /// let proxy = ProxyConfiguration.environment(["https_proxy": "http://127.0.0.1:3128", "NO_PROXY": "localhost"])
    /// ```
    public static func environment(_ variables: [String: String]) -> ProxyConfiguration {
        func first(_ names: [String]) -> Setting? {
            for name in names {
                if let value = variables[name], !value.trimmingCharacters(in: .whitespaces).isEmpty {
                    return Setting(origin: "\(name)=\(redacted(value))", proxy: Proxy(parsing: value))
                }
            }
            return nil
        }
        let all = ["all_proxy", "ALL_PROXY"]
        let noProxy = ["no_proxy", "NO_PROXY"].lazy.compactMap { variables[$0] }.first { !$0.isEmpty }
        return ProxyConfiguration(
            source: .rules(
                Rules(
                    http: first(["http_proxy"] + all), https: first(["https_proxy", "HTTPS_PROXY"] + all),
                    noProxy: NoProxyList(noProxy.map { [$0] } ?? []), fromEnvironment: true)))
    }

    /// This configuration with the environment read now, when it is ``environment``.
    ///
    /// The environment is read only then: `proxy(for:)` calls this for every request, and
    /// copying the process's environment cost more than the rest of a loopback request.
    func resolved(_ variables: [String: String]? = nil) -> ProxyConfiguration {
        guard case .environment = source else { return self }
        var resolved = Self.environment(variables ?? ProcessInfo.processInfo.environment)
        resolved.allowsCredentialsOverPlainHTTP = allowsCredentialsOverPlainHTTP
        return resolved
    }

    /// The proxy a request to `url` goes through, or `nil` when it goes direct (a scheme other
    /// than `http` and `https`, a host in `NO_PROXY`, no proxy set).
    ///
    /// ```swift
    /// let proxy = try ProxyConfiguration.environment(["https_proxy": "proxy:3128"])
    ///     .proxy(for: URL(string: "https://api.example.com/")!)
    /// print(proxy?.hostAndPort ?? "direct")   // proxy:3128
    /// ```
    ///
    /// - Throws: ``ProxyError`` with ``ProxyError/Reason/invalidProxyURL(_:)`` when the
    ///   proxy for the URL is not a usable proxy URL.
    public func proxy(for url: URL) throws(ProxyError) -> Proxy? {
        let rules: Rules
        switch resolved().source {
        case .rules(let resolved): rules = resolved
        case .environment: return nil  // resolved() never leaves it
        }
        let scheme = url.scheme?.lowercased()
        let setting: Setting?
        switch scheme {
        case "http": setting = rules.http
        case "https": setting = rules.https
        default: return nil
        }
        guard let setting, !rules.noProxy.matches(url.host ?? "") else { return nil }
        guard let proxy = setting.proxy else {
            throw ProxyError(
                proxy: setting.origin, url: url, reason: .invalidProxyURL(setting.origin),
                detail: "expected http://host:port or https://host:port")
        }
        return proxy
    }

    /// Whether any request could go through a proxy.
    var mayUseProxy: Bool {
        guard case .rules(let rules) = resolved().source else { return false }
        return rules.http != nil || rules.https != nil
    }

    /// Whether a request to any URL goes where it would under the process's own environment
    /// variables: what a transport that reads them itself (libcurl under FoundationNetworking)
    /// does anyway.
    var matchesProcessEnvironment: Bool {
        guard case .rules(let mine) = resolved().source,
            case .rules(let process) = ProxyConfiguration.environment.resolved().source
        else { return false }
        return mine.http?.proxy == process.http?.proxy && mine.https?.proxy == process.https?.proxy
            && (mine.http == nil && mine.https == nil || mine.noProxy == process.noProxy)
            && (mine.http == nil) == (process.http == nil) && (mine.https == nil) == (process.https == nil)
    }

    /// The refusal for a plain `http` request through `proxy` that carries any of the
    /// `credentialHeaders` (lowercased names), or `nil` when it may go.
    func refusal(url: URL, through proxy: Proxy, headers: HeaderFields, credentialHeaders: Set<String>) -> ProxyError? {
        guard !allowsCredentialsOverPlainHTTP, url.scheme?.lowercased() == "http" else { return nil }
        let names = headers.fields.map(\.name).filter {
            let name = $0.lowercased()
            return name != "proxy-authorization" && credentialHeaders.contains(name)
        }
        guard !names.isEmpty else { return nil }
        return ProxyError(proxy: proxy.hostAndPort, url: url, reason: .credentialsInClear(headers: names))
    }

    /// `text` with any user information (before an `@`) hidden, for messages.
    static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let start = text.range(of: "://").map(\.upperBound) ?? text.startIndex
        guard start <= at else { return text }
        return String(text[..<start]) + "<redacted>" + String(text[at...])
    }

    /// The source and the rules, never credentials.
    public var description: String {
        switch source {
        case .environment:
            return "ProxyConfiguration(environment)"
        case .rules(let rules):
            if rules.http == nil && rules.https == nil {
                return rules.fromEnvironment
                    ? "ProxyConfiguration(environment: none set)" : "ProxyConfiguration(direct)"
            }
            var parts: [String] = []
            if let http = rules.http { parts.append("http: \(http.proxy?.description ?? http.origin)") }
            if let https = rules.https { parts.append("https: \(https.proxy?.description ?? https.origin)") }
            if !rules.noProxy.entries.isEmpty { parts.append("noProxy: \(rules.noProxy.entries)") }
            return "ProxyConfiguration(\(parts.joined(separator: ", ")))"
        }
    }
}

/// The hosts that go direct: `NO_PROXY`'s entries, matched as curl matches them.
struct NoProxyList: Sendable, Hashable {
    /// The entries as given, split at commas and whitespace, lowercased.
    let entries: [String]

    init(_ lists: [String]) {
        entries = lists.flatMap { $0.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) }
            .map { $0.lowercased() }.filter { !$0.isEmpty }
    }

    /// Whether `host` (a name, an IPv4 address, or an IPv6 address with or without brackets)
    /// goes direct.
    func matches(_ rawHost: String) -> Bool {
        guard !entries.isEmpty else { return false }
        var host = rawHost.lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        let address = IPAddress(host)
        for entry in entries {
            if entry == "*" { return true }
            if let address {
                if let range = IPRange(entry), range.contains(address) { return true }
                continue
            }
            var name = entry
            while name.hasPrefix(".") { name.removeFirst() }
            while name.hasSuffix(".") { name.removeLast() }
            // A port does not narrow the entry: curl ignores it too.
            if let colon = name.firstIndex(of: ":"), !name[name.index(after: colon)...].contains(":") {
                name = String(name[..<colon])
            }
            guard !name.isEmpty else { continue }
            if host == name || host.hasSuffix("." + name) { return true }
        }
        return false
    }
}

/// An IPv4 or IPv6 address as bytes.
struct IPAddress: Hashable {
    let bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }
}

/// An address or a CIDR range (`10.0.0.0/8`, `fd00::/8`).
struct IPRange {
    let network: IPAddress
    let prefix: Int

    init?(_ text: String) {
        var text = text
        if text.hasPrefix("[") && text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let network = IPAddress(String(parts[0])) else { return nil }
        let bits = network.bytes.count * 8
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), (0...bits).contains(prefix) else { return nil }
            self.prefix = prefix
        } else {
            prefix = bits
        }
        self.network = network
    }

    func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        var remaining = prefix
        for (lhs, rhs) in zip(address.bytes, network.bytes) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if lhs & mask != rhs & mask { return false }
            remaining -= bits
        }
        return true
    }
}
