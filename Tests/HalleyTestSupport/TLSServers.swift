import Foundation
import Halley
import Testing

/// Why a TLS fixture could not start: names what is missing and how to install it. The suites
/// that need nginx, tinyproxy or openssl fail with it rather than skip: `.ci/test` installs
/// them.
public struct TLSLabError: Error, CustomStringConvertible {
    public let description: String

    /// An error that says `description`.
    public init(description: String) { self.description = description }
}

/// The real servers of the TLS and proxy suites, each started once per test process by
/// `HalleyTestSupport/tls_test_server.py` and stopped by it when the test process goes away, however
/// it ends (the script watches a pipe whose other end only this process holds):
///
/// - ``certificates()``: a private CA, a server certificate for `localhost` and `127.0.0.1`,
///   client certificates, and the hostile ones, made with `openssl` in a temporary directory;
/// - ``nginx()``: HTTPS with HTTP/2, a mutual-TLS server and a plain HTTP server on
///   `127.0.0.1`, serving a few HAL documents and logging each request's credentials;
/// - ``proxy(authenticated:)``: tinyproxy on `127.0.0.1`, logging each request;
/// - ``hostile()``: Python `ssl` servers that fail the handshake in each of the ways a client
///   must report (expired, wrong name, self-signed, old versions, client certificate
///   required, a handshake that stalls).
public enum TLSLab {
    /// The client certificate's key passphrase (`client-encrypted.key`).
    public static let passphrase = "s3cret"
    /// tinyproxy's `BasicAuth` user and password when ``proxy(authenticated:)`` asks for it.
    public static let proxyUser = "halley"
    public static let proxyPassword = "pr0xy"

    /// The certificates' directory.
    public struct Certificates: Sendable {
        public let directory: URL

        /// The absolute path of a file there, e.g. `path("ca.pem")`.
        public func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        /// The base64 SHA-256 of a certificate's public key, as curl pins it, computed by
        /// `openssl` the way curl's documentation does: an oracle independent of the library's
        /// own reading of the certificate.
        public func pin(of certificate: String) throws -> String {
            let openssl = try TLSLab.executable("openssl", install: "openssl")
            let pem = path(certificate)
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/sh")
            shell.arguments = [
                "-c",
                "'\(openssl)' x509 -in '\(pem)' -pubkey -noout | '\(openssl)' pkey -pubin -outform der "
                    + "| '\(openssl)' dgst -sha256 -binary | '\(openssl)' base64 -A",
            ]
            let output = Pipe()
            shell.standardOutput = output
            shell.standardError = FileHandle.nullDevice
            try shell.run()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            shell.waitUntilExit()
            let pin = printed.trimmingCharacters(in: .whitespacesAndNewlines)
            // A SHA-256 is 32 bytes: 44 base64 characters.
            guard shell.terminationStatus == 0, pin.count == 44 else {
                throw TLSLabError(description: "openssl could not hash the public key of \(pem): \"\(printed)\"")
            }
            return "sha256//" + pin
        }
    }

    /// nginx on three ports of `127.0.0.1`.
    public struct Nginx: Sendable {
        /// HTTPS (HTTP/2 offered) with the `localhost` certificate.
        public let tlsPort: Int
        /// The same, requiring a client certificate signed by the test CA.
        public let mutualTLSPort: Int
        /// Plain HTTP.
        public let plainPort: Int
        /// One line per request: `METHOD URL auth=[Authorization] proxyauth=[Proxy-Authorization] via=[Via] proto=...`.
        public let accessLog: URL

        public func https(_ path: String, host: String = "localhost") -> URL {
            URL(string: "https://\(host):\(tlsPort)\(path)")!
        }

        public func mutualTLS(_ path: String) -> URL { URL(string: "https://localhost:\(mutualTLSPort)\(path)")! }

        public func http(_ path: String, host: String = "127.0.0.1") -> URL {
            URL(string: "http://\(host):\(plainPort)\(path)")!
        }

        /// The access log's lines that contain `marker`, once there are `count` of them (or
        /// after two seconds): nginx writes a line when it has finished the request, which can
        /// be just after the client read the response. `count: 0` reads at once.
        public func logLines(containing marker: String, count: Int = 1) async throws -> [String] {
            try await TLSLab.lines(of: accessLog, count: count) { $0.contains(marker) }
        }
    }

    /// tinyproxy on one port of `127.0.0.1`.
    public struct Proxy: Sendable {
        public let port: Int
        public let log: URL
        public let authenticated: Bool

        /// `http://127.0.0.1:port`, with the credentials when `withCredentials`.
        public func url(withCredentials: Bool = false) -> URL {
            let user = withCredentials ? "\(TLSLab.proxyUser):\(TLSLab.proxyPassword)@" : ""
            return URL(string: "http://\(user)127.0.0.1:\(port)")!
        }

        /// The log's request lines (`Request (file descriptor N): GET http://... HTTP/1.1`)
        /// that contain `marker`, once there are `count` of them (or after two seconds).
        public func requestLines(containing marker: String, count: Int = 1) async throws -> [String] {
            try await TLSLab.lines(of: log, count: count) {
                $0.contains("Request (file descriptor") && $0.contains(marker)
            }
        }
    }

    /// The hostile servers' ports by case: `expired`, `wrong-name`, `self-signed`, `tls10`
    /// (0 when the local OpenSSL cannot serve TLS 1.0), `tls12`, `mtls`, `stall`; and
    /// `recorder`, a forward proxy that logs every request head it receives, verbatim.
    public struct Hostile: Sendable {
        public let ports: [String: Int]
        /// The recorder's log: each request head, ending with an empty line.
        public let recorderLog: URL

        public func url(_ name: String, host: String = "localhost") throws -> URL {
            let port = try #require(ports[name], "no hostile TLS server \(name)")
            return URL(string: "https://\(host):\(port)/")!
        }

        /// The recording proxy, with `user:password@` when given.
        public func recorder(user: String? = nil, password: String = "pw") throws -> URL {
            let port = try #require(ports["recorder"])
            return URL(string: "http://\(user.map { "\($0):\(password)@" } ?? "")127.0.0.1:\(port)")!
        }

        /// The request heads the recorder received that contain `marker`.
        public func recorded(containing marker: String) throws -> [String] {
            let text = (try? String(contentsOf: recorderLog, encoding: .utf8)) ?? ""
            return text.components(separatedBy: "\r\n\r\n").filter { $0.contains(marker) }
        }
    }

    /// The lines of a log that `match`, polled until there are `count` (two seconds at most).
    public static func lines(of log: URL, count: Int, where match: (String) -> Bool) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(2)
        while true {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n").map(String.init).filter(match)
            if lines.count >= count || ContinuousClock.now > deadline { return lines }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    // MARK: Starting

    public static func certificates() async throws -> Certificates {
        try await Registry.shared.value(named: "certificates") {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "halley-tls-\(UUID().uuidString)", isDirectory: true)
            _ = try await launch(["certs", directory.path], expecting: "OK")
            return Certificates(directory: directory)
        }
    }

    public static func nginx() async throws -> Nginx {
        try await Registry.shared.value(named: "nginx") {
            let nginx = try executable("nginx", install: "nginx-light")
            let certificates = try await certificates()
            let root = certificates.directory.appendingPathComponent("nginx", isDirectory: true)
            let www = root.appendingPathComponent("www", isDirectory: true)
            try FileManager.default.createDirectory(
                at: www.appendingPathComponent("items"), withIntermediateDirectories: true)
            for (path, text) in documents {
                try Data(text.utf8).write(to: www.appendingPathComponent(path))
            }
            let site = """
                    root \(www.path);
                    location / { try_files $uri $uri.json =404; }
                """
            let servers = """
                types { application/hal+json json; }
                server {
                    listen 127.0.0.1:@PORT0@ ssl http2;
                \(site)
                }
                server {
                    listen 127.0.0.1:@PORT1@ ssl http2;
                    ssl_client_certificate \(certificates.path("ca.pem"));
                    ssl_verify_client on;
                \(site)
                }
                server {
                    listen 127.0.0.1:@PORT2@;
                \(site)
                }

                """
            let ports = try await startNginx(
                nginx, in: root, certificates: certificates, ports: 3,
                logFormat:
                    #"$request_method $scheme://$host:$server_port$request_uri auth=[$http_authorization] proxyauth=[$http_proxy_authorization] via=[$http_via] proto=$server_protocol"#,
                servers: servers)
            return Nginx(
                tlsPort: ports[0], mutualTLSPort: ports[1], plainPort: ports[2],
                accessLog: root.appendingPathComponent("access.log"))
        }
    }

    public static func proxy(authenticated: Bool = false) async throws -> Proxy {
        try await Registry.shared.value(named: authenticated ? "tinyproxy-auth" : "tinyproxy") {
            let tinyproxy = try executable("tinyproxy", install: "tinyproxy")
            let certificates = try await certificates()
            let root = certificates.directory.appendingPathComponent(
                authenticated ? "tinyproxy-auth" : "tinyproxy", isDirectory: true)
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let log = root.appendingPathComponent("tinyproxy.log")
            let config = """
                Port @PORT0@
                Listen 127.0.0.1
                Timeout 10
                LogFile "\(log.path)"
                LogLevel Info
                PidFile "\(root.path)/tinyproxy.pid"
                MaxClients 64
                Allow 127.0.0.1
                \(authenticated ? "BasicAuth \(proxyUser) \(proxyPassword)" : "")

                """
            let template = root.appendingPathComponent("tinyproxy.conf.in")
            try Data(config.utf8).write(to: template)
            let ports = try await supervise(
                [tinyproxy, "-d", "-c", "\(root.path)/tinyproxy.conf"], in: root, ports: 1, template: template,
                output: root.appendingPathComponent("tinyproxy.conf"))
            return Proxy(port: ports[0], log: log, authenticated: authenticated)
        }
    }

    public static func hostile() async throws -> Hostile {
        try await Registry.shared.value(named: "hostile-tls") {
            let certificates = try await certificates()
            let line = try await launch(["hostile", "--certs", certificates.directory.path], expecting: "PORTS")
            var ports: [String: Int] = [:]
            for pair in line.split(separator: " ").dropFirst() {
                let parts = pair.split(separator: "=")
                if parts.count == 2, let port = Int(parts[1]) { ports[String(parts[0])] = port }
            }
            return Hostile(ports: ports, recorderLog: certificates.directory.appendingPathComponent("recorder.log"))
        }
    }

    /// The HAL documents nginx serves (`/root` links to `/items/1` and `/items/2`).
    public static let documents: [String: String] = [
        "root.json": #"{"_links": {"self": {"href": "/root"}, "item": [{"href": "/items/1"}, {"href": "/items/2"}]}}"#,
        "items/1.json": #"{"_links": {"self": {"href": "/items/1"}}, "id": 1}"#,
        "items/2.json": #"{"_links": {"self": {"href": "/items/2"}}, "id": 2}"#,
    ]

    /// A fixture defined in another file (``http2()``), started once per test process as
    /// the ones above are.
    public static func fixture<Value: Sendable>(
        named name: String, start: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await Registry.shared.value(named: name, start: start)
    }

    // MARK: Processes

    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("tls_test_server.py")

    /// Where an executable is: on `PATH`, or in the `sbin` directories a package manager puts
    /// servers in (not on every user's `PATH`).
    public static func executable(_ name: String, install package: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/sbin"]
        for directory in directories {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw TLSLabError(
            description: "\(name) is not installed (looked in PATH and the sbin directories); the TLS and proxy "
                + "tests need it: apt-get install \(package) (.ci/test installs it when missing)")
    }

    /// Starts `nginx` in `root` with `servers` (its `server` blocks, ports written `@PORT0@`,
    /// `@PORT1@` …) inside the settings every lab nginx shares: in the foreground with one
    /// worker, logs and temporary files in `root`, an access log in `logFormat`, HAL as the
    /// default type and the lab's server certificate. Returns the `ports` ports it listens on.
    public static func startNginx(
        _ nginx: String, in root: URL, certificates: Certificates, ports: Int, logFormat: String, servers: String
    ) async throws -> [Int] {
        let dir = root.path
        let config = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log warn;
            events { worker_connections 256; }
            http {
                log_format lab '\(logFormat)';
                access_log \(dir)/access.log lab;
                client_body_temp_path \(dir)/body;
                proxy_temp_path \(dir)/proxy;
                fastcgi_temp_path \(dir)/fastcgi;
                uwsgi_temp_path \(dir)/uwsgi;
                scgi_temp_path \(dir)/scgi;
                default_type application/hal+json;
                ssl_certificate \(certificates.path("server.pem"));
                ssl_certificate_key \(certificates.path("server.key"));
            \(servers)
            }

            """
        let template = root.appendingPathComponent("nginx.conf.in")
        try Data(config.utf8).write(to: template)
        return try await supervise(
            [nginx, "-p", dir, "-e", "\(dir)/error.log", "-c", "\(dir)/nginx.conf"], in: root, ports: ports,
            template: template, output: root.appendingPathComponent("nginx.conf"))
    }

    /// Starts nginx or tinyproxy under the script's supervision; returns the free ports it
    /// listens on, once they accept connections.
    public static func supervise(
        _ command: [String], in directory: URL, ports: Int, template: URL, output: URL
    ) async throws -> [Int] {
        let line = try await launch(
            [
                "supervise", "--dir", directory.path, "--free-ports", "\(ports)", "--template",
                "\(template.path):\(output.path)", "--",
            ] + command, expecting: "PORTS")
        let numbers = line.split(separator: " ").dropFirst().compactMap { Int($0) }
        guard numbers.count == ports else { throw TLSLabError(description: "\(command[0]) started oddly: \(line)") }
        return numbers
    }

    /// Runs the script with `arguments` and returns its first line, which must start with
    /// `expected`. The process stays alive (its stdin pipe is kept open) until this test
    /// process exits.
    private static func launch(_ arguments: [String], expecting expected: String) async throws -> String {
        guard (try? executable("python3", install: "python3")) != nil else {
            throw TLSLabError(description: "python3 is not installed; the TLS tests need it")
        }
        let (process, input, line) = try await TestServer.startPython(script, arguments)
        guard line.hasPrefix(expected) else {
            if process.isRunning { process.terminate() }
            let why = line.hasPrefix("FAILED ") ? String(line.dropFirst(7)) : "it printed \"\(line)\""
            throw TLSLabError(description: "tls_test_server.py \(arguments[0]) failed: \(why)")
        }
        keepAlive.withLock { $0.append(KeptProcess(process: process, input: input)) }
        return line
    }

    /// The running helpers and the write ends of their stdin, held until the process exits.
    private static let keepAlive = Locked<[KeptProcess]>([])
}

/// A helper process and the pipe that keeps it alive.
private struct KeptProcess: @unchecked Sendable {
    // Unchecked: both are only stored, never used again, so no thread can race on them.
    let process: Process
    let input: Pipe
}

/// Starts each fixture once, however many tests ask at the same time; a failed start is
/// remembered, so every test that needs it fails with the same reason.
private actor Registry {
    static let shared = Registry()
    private var tasks: [String: Task<any Sendable, any Error>] = [:]

    func value<Value: Sendable>(named name: String, start: @escaping @Sendable () async throws -> Value)
        async throws -> Value
    {
        let task = tasks[name] ?? Task<any Sendable, any Error> { try await start() }
        tasks[name] = task
        guard let value = try await task.value as? Value else {
            throw TLSLabError(description: "the fixture \(name) is of another type")
        }
        return value
    }
}
