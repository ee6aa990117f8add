import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// URLSession's task metrics in curl's terms, so `halley -v`, tracing and observers see the same
// fields whichever requester ran. Every property read here exists in Apple's Foundation and in
// FoundationNetworking alike (one differs in type: `remotePort`, see `portNumber`), so this
// file is compiled, and tested, on Linux too.

extension TransferMetrics {
    /// The metrics of a task's last network transaction (the final hop of a redirect chain, as
    /// ``CurlRequester`` reports); `nil` when the task reported none, or none from the network.
    init?(_ metrics: URLSessionTaskMetrics) {
        guard let last = metrics.transactionMetrics.last(where: { $0.resourceFetchType == .networkLoad }) else {
            return nil
        }
        self.init(last)
    }

    /// One transaction's fields. Times are from the transaction's fetch start and cumulative,
    /// as `curl -w` reports them: URLSession's connect interval includes the TLS handshake, so
    /// ``connect`` ends where the handshake starts. A step that did not happen is zero.
    init?(_ transaction: URLSessionTaskTransactionMetrics) {
        guard let start = transaction.fetchStartDate else { return nil }
        func since(_ date: Date?) -> Duration {
            guard let date else { return .zero }
            return .nanoseconds(Int64((max(0, date.timeIntervalSince(start)) * 1e9).rounded()))
        }
        self.init()
        httpVersion = Self.httpVersion(protocolName: transaction.networkProtocolName)
        remoteAddress = transaction.remoteAddress
        remotePort = Self.portNumber(transaction.remotePort)
        reusedConnection = transaction.isReusedConnection
        let secure = transaction.request.url?.scheme?.lowercased() == "https"
        if let version = transaction.negotiatedTLSProtocolVersion {
            tlsVersion = Self.tlsVersion(version)
        } else if secure {
            tlsVersion = "TLS"
        }
        nameLookup = since(transaction.domainLookupEndDate)
        connect = since(transaction.secureConnectionStartDate ?? transaction.connectEndDate)
        tlsHandshake = secure ? since(transaction.secureConnectionEndDate) : .zero
        firstByte = since(transaction.responseStartDate)
        total = since(transaction.responseEndDate)
    }

    /// ALPN's protocol identifiers (RFC 7301's registry) as ``httpVersion`` names them.
    static func httpVersion(protocolName: String?) -> String? {
        switch protocolName?.lowercased() {
        case nil: return nil
        case "http/1.0": return "HTTP/1.0"
        case "http/1.1": return "HTTP/1.1"
        case "h2", "h2c": return "HTTP/2"
        case let name? where name == "h3" || name.hasPrefix("h3-"): return "HTTP/3"
        case let name?: return name
        }
    }

    /// `TLSv1.3`, as libcurl's callback names versions.
    static func tlsVersion(_ version: tls_protocol_version_t) -> String {
        switch version {
        case .TLSv10: return "TLSv1.0"
        case .TLSv11: return "TLSv1.1"
        case .TLSv12: return "TLSv1.2"
        case .TLSv13: return "TLSv1.3"
        case .DTLSv10: return "DTLSv1.0"
        case .DTLSv12: return "DTLSv1.2"
        @unknown default: return "TLS"
        }
    }

    /// Apple's `remotePort` is an `Int?`...
    static func portNumber(_ port: Int?) -> Int? { port }

    /// ...and FoundationNetworking's a `String?`: the one overload the platform needs is picked.
    static func portNumber(_ port: String?) -> Int? { port.flatMap { Int($0) } }
}
