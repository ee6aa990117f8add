import Foundation

/// How one response travelled: the connection, the protocols and the time each step took.
///
/// A requester fills ``ResourceResponse/metrics`` when ``ResourceRequest/collectsMetrics``
/// asks for them and it can: ``CurlRequester`` does (from libcurl's own measurements, for the
/// last hop of a redirect chain), and so does ``URLSessionRequester`` (from
/// `URLSessionTaskMetrics` on Apple platforms; FoundationNetworking reports none, so on Linux
/// only ``total``, by the requester's clock); the others leave them `nil`. The engine passes
/// them on in ``RequestRecord/metrics``, so an observer sees them per request; `halley -v`
/// prints them.
///
/// ```swift
/// var options = CallOptions()
/// options.configureRequest = { request in request.collectsMetrics = true }
/// options.observer = { event in
///     if case .requestFinished(let record) = event, let metrics = record.metrics {
///         print(record.url, metrics)   // 127.0.0.1:8443, new connection, HTTP/2, TLSv1.3; ...
///     }
/// }
/// ```
///
/// Times are measured from the start of the exchange, each including the ones before it
/// (as `curl -w` reports them): ``connect`` includes ``nameLookup``, ``firstByte`` includes
/// the TLS handshake. A step that did not happen (no name to resolve, a reused connection)
/// is zero.
public struct TransferMetrics: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP version of the response: `HTTP/1.0`, `HTTP/1.1`, `HTTP/2` or `HTTP/3`.
    public var httpVersion: String?
    /// The TLS version, such as `TLSv1.3`; `TLS` when the connection is encrypted but its
    /// version was not reported; `nil` over plain HTTP.
    public var tlsVersion: String?
    /// The IP address connected to (the proxy's, through a proxy).
    public var remoteAddress: String?
    /// The port connected to.
    public var remotePort: Int?
    /// Whether the exchange reused an open connection rather than opening one.
    public var reusedConnection: Bool?
    /// Until the host name was resolved.
    public var nameLookup: Duration?
    /// Until the TCP connection was made.
    public var connect: Duration?
    /// Until the TLS handshake was done; zero over plain HTTP.
    public var tlsHandshake: Duration?
    /// Until the first byte of the response arrived.
    public var firstByte: Duration?
    /// Until the whole response had arrived.
    public var total: Duration?

    /// Creates metrics; every value is optional.
    public init(
        httpVersion: String? = nil, tlsVersion: String? = nil, remoteAddress: String? = nil, remotePort: Int? = nil,
        reusedConnection: Bool? = nil, nameLookup: Duration? = nil, connect: Duration? = nil,
        tlsHandshake: Duration? = nil, firstByte: Duration? = nil, total: Duration? = nil
    ) {
        self.httpVersion = httpVersion
        self.tlsVersion = tlsVersion
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.reusedConnection = reusedConnection
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.firstByte = firstByte
        self.total = total
    }

    /// `127.0.0.1:8443, new connection, HTTP/2, TLSv1.3; name lookup 0.05 ms, connect
    /// 0.21 ms, TLS 3.40 ms, first byte 4.10 ms, total 4.30 ms`: what is known.
    public var description: String {
        var parts: [String] = []
        if let remoteAddress {
            let host = remoteAddress.contains(":") ? "[\(remoteAddress)]" : remoteAddress
            parts.append(remotePort.map { "\(host):\($0)" } ?? host)
        }
        if let reusedConnection { parts.append(reusedConnection ? "reused connection" : "new connection") }
        if let httpVersion { parts.append(httpVersion) }
        if let tlsVersion { parts.append(tlsVersion) }
        let times = [
            ("name lookup", nameLookup), ("connect", connect), ("TLS", tlsHandshake), ("first byte", firstByte),
            ("total", total),
        ].compactMap { name, value in value.map { "\(name) \(Self.milliseconds($0)) ms" } }
        let head = parts.joined(separator: ", ")
        if times.isEmpty { return head }
        return head.isEmpty ? times.joined(separator: ", ") : head + "; " + times.joined(separator: ", ")
    }

    /// A duration in milliseconds with two decimals.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.2f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }
}
