import Foundation
import Halley
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request the test server received, as listed by its `/_requests` route.
public struct RecordedRequest: Sendable, Hashable, Decodable {
    /// `GET`, `HEAD`, ...
    public let method: String
    /// The request target as sent: path and raw query.
    public let path: String
    /// The header fields, names lowercased.
    public let headers: [String: String]
}

/// What the ``TestServer/hostileHTTP()`` server's `/echo` route received, read from its answer.
public struct EchoedRequest: Sendable {
    /// `GET`, `POST`, ... as the server read it; empty when the answer does not say.
    public let method: String
    /// The header fields, names lowercased, repeated fields joined with `, `.
    public let headers: JSONValue
    /// The body as text; empty for none.
    public let body: String
    /// The URL that answered: after redirects, the last one's.
    public let url: URL

    /// Reads the echo from the route's answer.
    public init(_ response: ResourceResponse) throws {
        let json = try JSONValue(parsing: response.body)
        method = json["method"]?.stringValue ?? ""
        headers = json["headers"] ?? .null
        body = json["body"]?.stringValue ?? ""
        url = response.url
    }
}

/// Why a test server could not be started or queried.
public struct TestServerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A real HTTP server for integration tests: `HalleyTestSupport/hal_test_server.py` (Python 3 standard
/// library) serving `Fixtures/server/` on a loopback address and a free port.
///
/// Each server starts once per test process, on first use, and lives until the process
/// exits: the script exits when its stdin reaches end of file, and the kernel closes the
/// write end of that pipe (held by ``input``) however the test process ends.
///
/// ```swift
/// let server = try await TestServer.shared()
/// let json = try await manager.resource(from: server.url("/contacts/1"))
/// ```
public final class TestServer: Sendable {
    /// The address the server is bound to (`127.0.0.1`, or `127.0.0.2` for ``secondary()``).
    public let host: String
    /// The port the server picked.
    public let port: Int
    /// `http://host:port`.
    public let baseURL: URL
    /// Why ``secondary()`` runs on `127.0.0.1` instead of `127.0.0.2`, if it does.
    public let fallbackReason: String?

    private let process: Process
    /// The write end of the server's stdin. Never written to and never closed: the server
    /// exits when this process does.
    private let input: Pipe

    private init(host: String, port: Int, baseURL: URL, process: Process, input: Pipe, fallbackReason: String?) {
        self.host = host
        self.port = port
        self.baseURL = baseURL
        self.process = process
        self.input = input
        self.fallbackReason = fallbackReason
    }

    // MARK: Shared instances

    /// The main server, on `127.0.0.1`.
    public static func shared() async throws -> TestServer {
        try await Registry.instance.server(named: "shared") {
            try await launch(host: "127.0.0.1")
        }
    }

    /// A second server with another origin, for credential tests: `127.0.0.2` (Linux routes
    /// all of 127.0.0.0/8 to loopback), or a second port on `127.0.0.1` where that address
    /// cannot be bound or reached (macOS only configures 127.0.0.1 by default).
    public static func secondary() async throws -> TestServer {
        try await Registry.instance.server(named: "secondary") {
            let reason: String
            do {
                let server = try await launch(host: "127.0.0.2")
                _ = try await server.requests()  // bound is not enough: it must answer
                return server
            } catch {
                reason = "127.0.0.2 is not usable: \(error)"
            }
            return try await launch(host: "127.0.0.1", fallbackReason: reason)
        }
    }

    /// A server for the hostile-input tests (huge and endless bodies, silent answers, redirect
    /// loops), apart from the shared one so its load never slows other suites.
    public static func hostile() async throws -> TestServer {
        try await Registry.instance.server(named: "hostile") {
            try await launch(host: "127.0.0.1")
        }
    }

    /// `HalleyTestSupport/hostile_http_server.py` on `127.0.0.1`: bodies that lie or never end, sent at
    /// full loopback speed, gzip bombs, header floods. Shared by the transport tests.
    public static func hostileHTTP() async throws -> TestServer {
        try await Registry.instance.server(named: "hostile-http") {
            try await launch(host: "127.0.0.1", script: hostileScriptURL, arguments: [])
        }
    }

    /// Another ``hostileHTTP()`` on another port of `127.0.0.1`: the same host, another origin
    /// (cookies, unlike credentials, ignore ports).
    public static func hostileHTTPOtherPort() async throws -> TestServer {
        try await Registry.instance.server(named: "hostile-http-2") {
            try await launch(host: "127.0.0.1", script: hostileScriptURL, arguments: [])
        }
    }

    /// `HalleyTestSupport/chaos_http_server.py` on `127.0.0.1`: the contacts graph with seeded faults, for
    /// the reliability suites (see ``ChaosServer``). It exits after `lifetime` at the latest.
    public static func chaos(lifetime: Duration) async throws -> TestServer {
        try await Registry.instance.server(named: "chaos") {
            try await launch(
                host: "127.0.0.1", script: chaosScriptURL,
                arguments: ["--lifetime", "\(lifetime.components.seconds)"])
        }
    }

    /// A server of the caller's own on `127.0.0.1`, started now, for tests that
    /// ``reset()`` the log (which would race with other tests on a shared server).
    public static func isolated() async throws -> TestServer {
        try await launch(host: "127.0.0.1")
    }

    // MARK: URLs

    /// The absolute URL of a path (with query) on this server, e.g. `url("/contacts/1")`.
    public func url(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) -> URL {
        guard let url = URL(string: baseURL.absoluteString + path) else {
            Issue.record("\"\(path)\" does not make a URL on \(baseURL)", sourceLocation: sourceLocation)
            return baseURL
        }
        return url
    }

    /// `/link-to?url=<target>`: a HAL document whose `other` link is `target`.
    public func linkTo(_ target: URL, sourceLocation: SourceLocation = #_sourceLocation) -> URL {
        url("/link-to?url=" + Self.queryValue(target.absoluteString), sourceLocation: sourceLocation)
    }

    /// `/redirect?to=<target>`: a 302 to `target` (a path or an absolute URL), verbatim.
    public func redirect(to target: String, sourceLocation: SourceLocation = #_sourceLocation) -> URL {
        url("/redirect?to=" + Self.queryValue(target), sourceLocation: sourceLocation)
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    public static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    // MARK: Scripted answers

    /// From now on, `method` at `path` (which starts with `/scripted/`) answers `status` with
    /// `headers` and `body` (as `application/hal+json`); a `GET` whose `If-None-Match` is the
    /// scripted `ETag` answers `304`.
    ///
    /// ```swift
    /// try await server.script("GET", "/scripted/\(marker)/a", headers: [("ETag", "\"1\"")], body: ["v": 1])
    /// ```
    public func script(
        _ method: String, _ path: String, status: Int = 200, headers: [(String, String)] = [], body: JSONValue? = nil
    ) async throws {
        var query = "method=\(Self.queryValue(method))&path=\(Self.queryValue(path))&status=\(status)"
        for (name, value) in headers { query += "&header=" + Self.queryValue("\(name): \(value)") }
        if let body { query += "&body=" + Self.queryValue(String(decoding: body.serialized(), as: UTF8.self)) }
        _ = try await get("/_script?" + query)
    }

    // MARK: Request log

    /// Every request received since the start or the last ``reset()``, in arrival order.
    public func requests() async throws -> [RecordedRequest] {
        struct Log: Decodable { let requests: [RecordedRequest] }
        let data = try await get("/_requests")
        do {
            return try JSONDecoder().decode(Log.self, from: data).requests
        } catch {
            throw TestServerError("cannot decode \(baseURL)/_requests: \(error)")
        }
    }

    /// Clears the request log.
    public func reset() async throws {
        _ = try await get("/_reset")
    }

    /// Requests whose target contains `marker`: how tests find their own requests while other
    /// tests use the same server.
    public func requests(containing marker: String) async throws -> [RecordedRequest] {
        try await requests().filter { $0.path.contains(marker) }
    }

    private static let session = URLSession(configuration: .ephemeral)

    private func get(_ path: String) async throws -> Data {
        var request = URLRequest(url: url(path))
        request.timeoutInterval = 10
        let (data, response) = try await Self.session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw TestServerError("\(request.url?.absoluteString ?? path) did not answer 200: \(response)")
        }
        return data
    }

    // MARK: Launching

    /// The script and the documents, located from this file
    /// (`Tests/HalleyTestSupport/TestServer.swift`).
    private static let supportDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    public static let scriptURL = supportDirectory.appendingPathComponent("hal_test_server.py")
    public static let hostileScriptURL = supportDirectory.appendingPathComponent("hostile_http_server.py")
    public static let chaosScriptURL = supportDirectory.appendingPathComponent("chaos_http_server.py")
    public static let documentsURL =
        supportDirectory
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("Fixtures")
        .appendingPathComponent("server")

    /// How long the script may take to print its port.
    private static let startupTimeout: TimeInterval = 15

    private static func launch(
        host: String, fallbackReason: String? = nil, script: URL = scriptURL,
        arguments: [String] = ["--root", documentsURL.path]
    ) async throws -> TestServer {
        let errors = Pipe()
        let started: (process: Process, input: Pipe, line: String)
        do {
            started = try await startPython(script, arguments + ["--host", host, "--port", "0"], errors: errors)
        } catch {
            throw TestServerError("cannot run /usr/bin/env python3 \(script.path): \(error)")
        }
        let (process, input, line) = started
        let fields = line.split(separator: " ")
        guard fields.count == 2, fields[0] == "PORT", let port = Int(fields[1]), port > 0,
            let baseURL = URL(string: "http://\(host):\(port)")
        else {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            let message = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            throw TestServerError(
                "the integration test server did not start on \(host) (python3 must be on PATH): "
                    + "expected a line \"PORT <n>\", read \"\(line)\"; exit status \(process.terminationStatus)"
                    + (message.isEmpty ? "" : "; stderr: \(message)"))
        }
        return TestServer(
            host: host, port: port, baseURL: baseURL, process: process, input: input,
            fallbackReason: fallbackReason)
    }

    /// Starts `python3 script arguments` with its stdin and stdout piped and its stderr to
    /// `errors` (discarded when `nil`), and returns the process, the write end of its stdin
    /// (the helper scripts exit when it closes) and the first line it printed.
    public static func startPython(_ script: URL, _ arguments: [String], errors: Pipe? = nil) async throws
        -> (process: Process, input: Pipe, line: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors ?? FileHandle.nullDevice
        // Spawning blocks the calling thread (for long under ThreadSanitizer, which stops
        // the world around a fork); on a Dispatch thread it cannot hold up Swift's few
        // cooperative threads and the timing-sensitive suites running on them.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async { continuation.resume(with: Result { try process.run() }) }
        }
        return (process, input, await firstLine(of: output.fileHandleForReading, process: process))
    }

    /// The first line the process prints (without the newline), or what it printed before
    /// closing its stdout or before ``startupTimeout`` (the process is then terminated).
    public static func firstLine(of handle: FileHandle, process: Process) async -> String {
        let finished = Flag()
        DispatchQueue.global().asyncAfter(deadline: .now() + startupTimeout) {
            if finished.set() == false, process.isRunning { process.terminate() }
        }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes = Data()
                while !bytes.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData  // blocks; empty at end of file
                    if chunk.isEmpty { break }
                    bytes.append(chunk)
                }
                _ = finished.set()
                let text = String(decoding: bytes, as: UTF8.self)
                continuation.resume(returning: String(text.prefix { $0 != "\n" }))
            }
        }
    }
}

/// Starts each named server once, however many tests ask for it at the same time; a failed
/// start is remembered, so every test that needs the server reports the same reason.
private actor Registry {
    static let instance = Registry()
    private var launches: [String: Task<TestServer, any Error>] = [:]

    func server(named name: String, launch: @escaping @Sendable () async throws -> TestServer) async throws
        -> TestServer
    {
        if let existing = launches[name] { return try await existing.value }
        let task = Task { try await launch() }
        launches[name] = task
        return try await task.value
    }
}

/// A flag set once, from any thread.
private final class Flag: Sendable {
    private let isSet = Locked(false)

    /// Sets the flag; returns whether it was already set.
    func set() -> Bool { isSet.exchange(true) }
}
