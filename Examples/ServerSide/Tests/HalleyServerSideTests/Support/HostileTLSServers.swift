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

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // HalleyServerSideTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // ServerSide
        .deletingLastPathComponent()  // Examples
        .deletingLastPathComponent()
        .appendingPathComponent("Tests/HalleyTestSupport/tls_test_server.py")

    /// The write ends of the scripts' stdin, held (never written, never closed) until the
    /// process exits.
    private static let pipes = NIOLockedValueBox<[Pipe]>([])

    /// Starts the script and returns its first line.
    private static func run(_ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        pipes.withLockedValue { $0.append(input) }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes = Data()
                while !bytes.contains(UInt8(ascii: "\n")) {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    bytes.append(chunk)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self).prefix { $0 != "\n" }.description)
            }
        }
    }
}
