import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// nginx serving HTTPS with HTTP/2 in the ways that test a client's HTTP/2 (issue #28): one
/// server that ends each connection with a GOAWAY after a few requests, one that allows fewer
/// concurrent streams than a call's limit, one with nginx's defaults. Started once per test
/// process, with the TLS tests' certificates, and stopped with it (see ``TLSLab``).
///
/// Each server serves the same 40-resource tree: `/m/<marker>/tree/0` links three children,
/// each of them three more, down to 27 leaves. Links are relative, so a traversal stays under
/// its own `<marker>` and a test finds its requests in the shared access log, however many
/// tests run at once. `/post` answers any method with a small document, `/reset` resets the
/// request's stream (nginx's `return 444`: over HTTP/2, an RST_STREAM; the connection lives on).
struct HTTP2Nginx: Sendable {
    /// Each connection ends with a GOAWAY after ``requestsPerConnection`` requests.
    let goawayPort: Int
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` of ``maxConcurrentStreams``.
    let narrowPort: Int
    /// nginx's defaults: 128 streams, 1,000 requests per connection.
    let defaultPort: Int
    let accessLog: URL

    static let requestsPerConnection = 7
    static let maxConcurrentStreams = 4

    /// `https://localhost:<port>/m/<marker>/tree/0`.
    func tree(port: Int, marker: String) -> URL {
        URL(string: "https://localhost:\(port)/m/\(marker)/tree/0")!
    }

    func url(port: Int, _ pathAndQuery: String) -> URL {
        URL(string: "https://localhost:\(port)\(pathAndQuery)")!
    }

    /// One request as nginx logged it.
    struct Entry: Sendable, CustomStringConvertible {
        let port: Int
        /// nginx's connection serial number (`$connection`).
        let connection: Int
        /// The request's number on its connection (`$connection_requests`).
        let requestOnConnection: Int
        let method: String
        let target: String
        let proto: String
        let status: Int

        var description: String {
            "\(port) c=\(connection) n=\(requestOnConnection) \(method) \(target) \(proto) \(status)"
        }
    }

    /// The logged requests whose target contains `marker`, once there are `count` of them
    /// (or after two seconds: nginx logs a request when it has finished it).
    func entries(containing marker: String, count: Int) async throws -> [Entry] {
        let lines = try await TLSLab.lines(of: accessLog, count: count) { $0.contains(marker) }
        return lines.compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 7, let port = Int(fields[0]), let connection = Int(fields[1].dropFirst(2)),
                let number = Int(fields[2].dropFirst(2)), let status = Int(fields[6])
            else { return nil }
            return Entry(
                port: port, connection: connection, requestOnConnection: number, method: fields[3],
                target: fields[4], proto: fields[5], status: status)
        }
    }

    /// The tree's documents by path under `www/tree`, hrefs relative to the document.
    static let treeDocuments: [String: String] = {
        var documents: [String: String] = [:]
        func add(_ id: String, depth: Int) {
            var links = #""self": {"href": "\#(id)"}"#
            if depth < 3 {
                let children = (0..<3).map { #"{"href": "\#(id).\#($0)"}"# }
                links += #", "child": [\#(children.joined(separator: ", "))]"#
                for child in 0..<3 { add("\(id).\(child)", depth: depth + 1) }
            }
            documents["\(id).json"] = #"{"_links": {\#(links)}, "id": "\#(id)"}"#
        }
        add("0", depth: 0)
        return documents
    }()
}

extension TLSLab {
    /// nginx for the HTTP/2 tests, on three ports of `127.0.0.1`.
    static func http2() async throws -> HTTP2Nginx {
        try await fixture(named: "nginx-http2") {
            let nginx = try executable("nginx", install: "nginx-light")
            let certificates = try await certificates()
            let root = certificates.directory.appendingPathComponent("nginx-http2", isDirectory: true)
            let tree = root.appendingPathComponent("www/tree", isDirectory: true)
            try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
            for (name, text) in HTTP2Nginx.treeDocuments {
                try Data(text.utf8).write(to: tree.appendingPathComponent(name))
            }
            let site = """
                        location ~ ^/m/[^/]+/tree/([0-9.]+)$ { alias \(tree.path)/$1.json; }
                        location /post { return 200 '{"posted": true}'; }
                        location /reset { return 444; }
                """
            let servers = """
                server {
                    listen 127.0.0.1:@PORT0@ ssl http2;
                    # For HTTP/2 too since nginx 1.19.7: a GOAWAY after this many streams.
                    keepalive_requests \(HTTP2Nginx.requestsPerConnection);
                \(site)
                }
                server {
                    listen 127.0.0.1:@PORT1@ ssl http2;
                    http2_max_concurrent_streams \(HTTP2Nginx.maxConcurrentStreams);
                \(site)
                }
                server {
                    listen 127.0.0.1:@PORT2@ ssl http2;
                \(site)
                }

                """
            let ports = try await startNginx(
                nginx, in: root, certificates: certificates, ports: 3,
                logFormat:
                    #"$server_port c=$connection n=$connection_requests $request_method $request_uri $server_protocol $status"#,
                servers: servers)
            return HTTP2Nginx(
                goawayPort: ports[0], narrowPort: ports[1], defaultPort: ports[2],
                accessLog: root.appendingPathComponent("access.log"))
        }
    }
}
