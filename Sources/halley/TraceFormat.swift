import Foundation
import Halley

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `--trace` text: one line per request and the waterfall. The formats are documented
/// in `halley get --help`; scripts and tests parse them, so change both together.
enum TraceFormat {
    /// Columns of the waterfall's time axis.
    static let waterfallWidth = 60

    /// `trace: GET URL status=200 bytes=311 start=1.07ms duration=0.21ms include=[contacts]`.
    ///
    /// `include` comes last because an include path may hold spaces (quoted rels); the URL
    /// never does (it is percent-encoded).
    static func line(_ record: RequestRecord) -> String {
        let status = record.status.map(String.init) ?? "failed"
        let bytes = record.bytes ?? 0
        return "trace: \(record.method.rawValue) \(record.url.absoluteString) status=\(status) bytes=\(bytes) "
            + "start=\(milliseconds(record.start))ms duration=\(milliseconds(record.duration ?? .zero))ms "
            + "include=\(includeLabel(record))"
    }

    /// `-v`'s line under each trace line: `trace:   via=127.0.0.1:8443 connection=new
    /// protocol=HTTP/2 tls=TLSv1.3 dns=0.05ms connect=0.21ms tls-handshake=3.40ms
    /// first-byte=4.10ms total=4.30ms`. `tls=none` over plain HTTP; a value the requester did
    /// not report is left out, and a requester that reports none gives
    /// `trace:   connection details not reported by this requester`.
    static func connectionLine(_ record: RequestRecord) -> String {
        guard let metrics = record.metrics else {
            return "trace:   connection details not reported by this requester"
        }
        var fields: [String] = []
        if let address = metrics.remoteAddress {
            let host = address.contains(":") ? "[\(address)]" : address
            fields.append("via=" + (metrics.remotePort.map { "\(host):\($0)" } ?? host))
        }
        if let reused = metrics.reusedConnection { fields.append("connection=" + (reused ? "reused" : "new")) }
        if let version = metrics.httpVersion { fields.append("protocol=\(version)") }
        fields.append("tls=\(metrics.tlsVersion ?? "none")")
        for (name, value) in [
            ("dns", metrics.nameLookup), ("connect", metrics.connect), ("tls-handshake", metrics.tlsHandshake),
            ("first-byte", metrics.firstByte), ("total", metrics.total),
        ] {
            if let value { fields.append("\(name)=\(milliseconds(value))ms") }
        }
        return "trace:   " + fields.joined(separator: " ")
    }

    /// `-v`'s lines for a request, as curl prints them: `> GET /contacts/1 HTTP/1.1`, then
    /// `> Host: api.example.com` and `> Name: value` per header field the request was handed
    /// to the requester with. The protocol is the one the response came over (`HTTP` when the
    /// requester did not say); the transport's own fields (libcurl's `Accept-Encoding`) are
    /// not among them. None for a request whose fields were not recorded.
    static func requestLines(_ record: RequestRecord) -> [String] {
        guard let fields = record.requestHeaders else { return [] }
        let components = URLComponents(url: record.url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? ""
        let query = components?.percentEncodedQuery.map { "?" + $0 } ?? ""
        let version = record.metrics?.httpVersion ?? "HTTP"
        var lines = ["> \(record.method.rawValue) \(path.isEmpty ? "/" : path)\(query) \(version)"]
        if let host = components?.percentEncodedHost, !host.isEmpty, !fields.contains("Host") {
            // An IPv6 address in brackets, as in the URL; the port only when the URL gives one.
            let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            lines.append("> Host: " + (components?.port.map { "\(name):\($0)" } ?? name))
        }
        for field in fields { lines.append("> \(field.name): \(field.value)") }
        return lines
    }

    /// `-i`'s lines for a response: `< HTTP/2 200 OK (GET URL)`, then `< Name: value` per
    /// header field; none for a request that got no response.
    static func headerLines(_ record: RequestRecord) -> [String] {
        guard let status = record.status else { return [] }
        let version = record.metrics?.httpVersion ?? "HTTP"
        let reason = HTTPURLResponse.localizedString(forStatusCode: status)
        var lines = [
            "< \(version) \(status)\(reason.isEmpty ? "" : " " + reason) (\(record.method.rawValue) "
                + "\(record.url.absoluteString))"
        ]
        for field in record.headers ?? [:] { lines.append("< \(field.name): \(field.value)") }
        return lines
    }

    /// The waterfall: a header line, then one row per request in start order, e.g.
    ///
    ///     waterfall: 3 requests in 2.40ms, 1 column = 0.04ms
    ///       #1 |=====                                                       | 0.00ms +0.30ms (root) https://...
    ///       #2 |      ==========                                            | 0.40ms +0.60ms [contacts] https://...
    ///
    /// Bars start at the request's offset and span its duration (at least one column), so
    /// requests whose bars overlap vertically ran in parallel.
    static func waterfall(_ records: [RequestRecord]) -> [String] {
        guard !records.isEmpty else { return ["waterfall: no requests"] }
        let ordered = records.enumerated().sorted { lhs, rhs in
            lhs.element.start != rhs.element.start ? lhs.element.start < rhs.element.start : lhs.offset < rhs.offset
        }.map(\.element)
        let total = ordered.map { seconds($0.start + ($0.duration ?? .zero)) }.max() ?? 0
        let width = waterfallWidth
        let columnSeconds = total / Double(width)
        let numberWidth = String(ordered.count).count
        var lines = [
            "waterfall: \(ordered.count) request\(ordered.count == 1 ? "" : "s") in \(format(total * 1000))ms, "
                + "1 column = \(format(columnSeconds * 1000))ms"
        ]
        for (index, record) in ordered.enumerated() {
            let start = seconds(record.start)
            let end = start + seconds(record.duration ?? .zero)
            var first = 0
            var last = 1
            if total > 0 {
                first = min(width - 1, max(0, Int((start / total * Double(width)).rounded(.down))))
                last = min(width, max(first + 1, Int((end / total * Double(width)).rounded(.up))))
            }
            let bar =
                String(repeating: " ", count: first) + String(repeating: "=", count: last - first)
                + String(repeating: " ", count: width - last)
            let number = String(index + 1)
            let label = String(repeating: " ", count: numberWidth - number.count) + "#" + number
            lines.append(
                "  \(label) |\(bar)| \(milliseconds(record.start))ms +\(milliseconds(record.duration ?? .zero))ms "
                    + "\(includeLabel(record)) \(record.url.absoluteString)")
        }
        return lines
    }

    /// The include path, or `(root)` for the root request.
    static func includeLabel(_ record: RequestRecord) -> String {
        record.includePath ?? "(root)"
    }

    /// A duration in milliseconds with two decimals, e.g. `1.07`.
    static func milliseconds(_ duration: Duration) -> String {
        format(seconds(duration) * 1000)
    }

    private static func seconds(_ duration: Duration) -> Double {
        let components = duration.components
        return Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    private static func format(_ value: Double) -> String {
        String(format: "%.2f", value)
    }
}
