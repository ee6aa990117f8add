import Foundation
import NIOConcurrencyHelpers

/// The root package's TLS fixtures (`Tests/HalleyTestSupport/tls_test_server.py`): a private
/// CA and certificates made with `openssl` in a temporary directory, and Python `ssl` servers
/// on `127.0.0.1`, one port per case (`tls12` serves a certificate for `localhost` signed by
/// the CA; `mtls` also requires a client certificate from it; `self-signed`, `wrong-name`).
///
/// Started once per test process; both scripts exit when their stdin reaches end of file,
/// which the kernel brings about when this process exits, however it exits.
struct HostileTLSServers: Sendable {
    /// The certificates' directory.
    let directory: URL
    let ports: [String: Int]

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func url(_ name: String, host: String = "localhost") -> URL {
        URL(string: "https://\(host):\(ports[name] ?? 0)/")!
    }

    static func shared() async throws -> HostileTLSServers { try await launch.value }

    private static let launch = Task { () throws -> HostileTLSServers in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "halley-serverside-tls-\(UUID().uuidString)")
        let ready = try await run(["certs", directory.path])
        guard ready == "OK" else {
            throw LoopbackServerError(description: "tls_test_server.py certs failed (needs openssl): \(ready)")
        }
        let line = try await run(["hostile", "--certs", directory.path])
        guard line.hasPrefix("PORTS ") else {
            throw LoopbackServerError(description: "tls_test_server.py hostile did not start: \(line)")
        }
        var ports: [String: Int] = [:]
        for pair in line.split(separator: " ").dropFirst() {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let port = Int(parts[1]) { ports[String(parts[0])] = port }
        }
        return HostileTLSServers(directory: directory, ports: ports)
    }

    /// The write ends of the scripts' stdin, held (never written, never closed) until the
    /// process exits.
    private static let pipes = NIOLockedValueBox<[Pipe]>([])

    /// Starts the script and returns its first line.
    private static func run(_ arguments: [String]) async throws -> String {
        let (_, input, line) = try await LoopbackServer.startPython("tls_test_server.py", arguments)
        pipes.withLockedValue { $0.append(input) }
        return line
    }
}
