import Foundation
import NIOConcurrencyHelpers

/// Why a test server could not be started.
struct LoopbackServerError: Error, CustomStringConvertible {
    let description: String
}

/// One of the root package's Python test servers, on a loopback address and a free port:
/// `hal_test_server.py` serving this package's `Fixtures/`, or `hostile_http_server.py`.
///
/// Each starts once per test process, on first use. The script exits when its stdin reaches
/// end of file, and the kernel closes the write end of that pipe (held by ``input``) when this
/// process exits, however it exits: a server never outlives the tests.
final class LoopbackServer: Sendable {
    /// `http://host:port`.
    let baseURL: URL
    private let process: Process
    /// The write end of the server's stdin: never written to, never closed.
    private let input: Pipe

    private init(baseURL: URL, process: Process, input: Pipe) {
        self.baseURL = baseURL
        self.process = process
        self.input = input
    }

    /// The HAL server on `127.0.0.1`, serving `Examples/ServerSide/Fixtures`.
    static func hal() async throws -> LoopbackServer { try await halLaunch.value }

    /// A second HAL server on `127.0.0.2` (Linux routes 127.0.0.0/8 to loopback), or on another
    /// port of `127.0.0.1` where that address cannot be used: another origin either way.
    static func otherOrigin() async throws -> LoopbackServer { try await otherLaunch.value }

    /// The hostile server (gzip bombs, endless bodies, header floods, redirects with any status).
    static func hostile() async throws -> LoopbackServer { try await hostileLaunch.value }

    private static let halLaunch = Task { try await launch(script: "hal_test_server.py", host: "127.0.0.1") }
    private static let hostileLaunch = Task { try await launch(script: "hostile_http_server.py", host: "127.0.0.1") }
    private static let otherLaunch = Task {
        do {
            return try await launch(script: "hal_test_server.py", host: "127.0.0.2")
        } catch {
            return try await launch(script: "hal_test_server.py", host: "127.0.0.1")
        }
    }

    /// The absolute URL of a path (with its query) on this server.
    func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + path) ?? baseURL
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters, for query values.
    static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    // MARK: Launching

    /// The repository root, from this file (`Examples/ServerSide/Tests/HalleyServerSideTests/Support/`).
    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // HalleyServerSideTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // ServerSide
        .deletingLastPathComponent()  // Examples
        .deletingLastPathComponent()

    /// The root package's `Tests/HalleyTestSupport`, where the Python servers are.
    static let scripts = repository.appendingPathComponent("Tests/HalleyTestSupport")
    private static let fixtures = repository.appendingPathComponent("Examples/ServerSide/Fixtures")

    private static func launch(script: String, host: String) async throws -> LoopbackServer {
        var arguments = ["--host", host, "--port", "0"]
        if script == "hal_test_server.py" { arguments += ["--root", fixtures.path] }
        let (process, input, line) = try await startPython(script, arguments)
        let fields = line.split(separator: " ")
        guard fields.count == 2, fields[0] == "PORT", let port = Int(fields[1]),
            let baseURL = URL(string: "http://\(host):\(port)")
        else {
            if process.isRunning { process.terminate() }
            throw LoopbackServerError(
                description: "\(script) did not start on \(host) (python3 must be on PATH): read \"\(line)\"")
        }
        return LoopbackServer(baseURL: baseURL, process: process, input: input)
    }

    /// Starts `python3 <script> <arguments>` (a script of ``scripts``) with its stdin and stdout
    /// piped, and returns the process, the write end of its stdin (the scripts exit when it
    /// closes) and the first line it printed.
    static func startPython(_ script: String, _ arguments: [String]) async throws
        -> (process: Process, input: Pipe, line: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", scripts.appendingPathComponent(script).path] + arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        // Spawning blocks its thread; a Dispatch thread keeps Swift's cooperative pool free.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async { continuation.resume(with: Result { try process.run() }) }
        }
        return (process, input, await firstLine(of: output.fileHandleForReading, process: process))
    }

    /// The first line the process prints, or what it printed before closing stdout or before
    /// 15 s (the process is then terminated).
    private static func firstLine(of handle: FileHandle, process: Process) async -> String {
        let started = Flag()
        // Terminating closes the script's stdout, which ends the read below.
        DispatchQueue.global().asyncAfter(deadline: .now() + 15) {
            if process.isRunning && !started.get() { process.terminate() }
        }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes = Data()
                while !bytes.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    bytes.append(chunk)
                }
                started.set()
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self).prefix { $0 != "\n" }.description)
            }
        }
    }
}

/// A flag set once, read from any thread.
private final class Flag: Sendable {
    private let value = NIOLockedValueBox(false)

    func set() { value.withLockedValue { $0 = true } }
    func get() -> Bool { value.withLockedValue { $0 } }
}
