import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// nginx for the `nginx` scenario, on three free ports of `127.0.0.1`, with a private CA and
/// a server certificate for `localhost` and `127.0.0.1` made by `openssl`, everything in a
/// temporary directory:
///
/// - ``plainPort``: HTTP/1.1 keep-alive, static documents;
/// - ``tlsPort``: HTTPS with HTTP/2, the same documents;
/// - ``frontPort``: HTTPS with HTTP/2 in front of ``BenchServer`` (`proxy_pass`, upstream
///   keep-alive), so each response takes the latency its URL asks for.
///
/// Static documents: `/lists/<n>` links `/items/0` ... `/items/<n-1>`; `/m/<marker>/tree/0`
/// is a 40-resource tree (fan-out 3, depth 3) whose relative links stay under `<marker>`.
///
/// nginx runs under `/bin/sh`, which waits on a pipe only this process holds: when the pipe
/// closes (``stop()``, or this process ending in any way) the shell stops nginx and removes
/// the directory.
final class NginxLab: Sendable {
    let plainPort: Int
    let tlsPort: Int
    let frontPort: Int
    /// The CA that signed the server certificate.
    let caFile: String
    private let accessLog: URL
    private let shell: ProcessBox

    private init(plainPort: Int, tlsPort: Int, frontPort: Int, caFile: String, accessLog: URL, shell: ProcessBox) {
        self.plainPort = plainPort
        self.tlsPort = tlsPort
        self.frontPort = frontPort
        self.caFile = caFile
        self.accessLog = accessLog
        self.shell = shell
    }

    func plain(_ path: String) -> String { "http://127.0.0.1:\(plainPort)\(path)" }
    func tls(_ path: String) -> String { "https://127.0.0.1:\(tlsPort)\(path)" }
    func front(_ path: String) -> String { "https://127.0.0.1:\(frontPort)\(path)" }

    /// Starts nginx with `/lists/<n>` for each of `listSizes`, in front of `backend`.
    ///
    /// - Throws: ``BenchError`` naming what is missing or what nginx said.
    static func start(listSizes: [Int], backend: BenchServer) throws -> NginxLab {
        let nginx = try executable("nginx", package: "nginx-light")
        let openssl = try executable("openssl", package: "openssl")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "halley-bench-nginx-\(UUID().uuidString)", isDirectory: true)
        let dir = directory.path
        do {
            try writeDocuments(to: directory.appendingPathComponent("www"), listSizes: listSizes)
            try makeCertificates(in: directory, openssl: openssl)
            let ports = try FreePorts.pick(3)
            let backendPort = backend.baseURL.port ?? 80
            let config = """
                daemon off;
                master_process off;
                worker_processes 1;
                pid \(dir)/nginx.pid;
                error_log \(dir)/error.log warn;
                events { worker_connections 1024; }
                http {
                    log_format bench '$connection $request_uri';
                    access_log \(dir)/access.log bench;
                    client_body_temp_path \(dir)/body;
                    proxy_temp_path \(dir)/proxy;
                    fastcgi_temp_path \(dir)/fastcgi;
                    uwsgi_temp_path \(dir)/uwsgi;
                    scgi_temp_path \(dir)/scgi;
                    default_type application/hal+json;
                    # Steady state: no connection ends during a measurement (nginx's default
                    # is 1,000 requests, fewer than one repetition over HTTP/2).
                    keepalive_requests 1000000;
                    keepalive_timeout 300s;
                    ssl_certificate \(dir)/server.pem;
                    ssl_certificate_key \(dir)/server.key;
                    upstream backend {
                        server 127.0.0.1:\(backendPort);
                        keepalive 64;
                    }
                    server {
                        listen 127.0.0.1:\(ports[0]);
                        root \(dir)/www;
                        location ~ ^/m/[^/]+/tree/([0-9.]+)$ { alias \(dir)/www/tree/$1; }
                    }
                    server {
                        listen 127.0.0.1:\(ports[1]) ssl http2;
                        root \(dir)/www;
                        location ~ ^/m/[^/]+/tree/([0-9.]+)$ { alias \(dir)/www/tree/$1; }
                    }
                    server {
                        listen 127.0.0.1:\(ports[2]) ssl http2;
                        location / {
                            proxy_pass http://backend;
                            proxy_http_version 1.1;
                            proxy_set_header Connection "";
                        }
                    }
                }

                """
            try Data(config.utf8).write(to: directory.appendingPathComponent("nginx.conf"))
            let shell = try ProcessBox.supervise(
                "\(quoted(nginx)) -p \(quoted(dir)) -e \(quoted(dir + "/error.log")) -c \(quoted(dir + "/nginx.conf"))",
                removing: dir)
            let deadline = ContinuousClock.now + .seconds(10)
            while !ports.allSatisfy(FreePorts.accepts) {
                guard shell.isRunning, ContinuousClock.now < deadline else {
                    let errors = (try? String(contentsOfFile: dir + "/nginx.out", encoding: .utf8)) ?? ""
                    shell.stop()
                    throw BenchError("nginx did not start: \(errors.suffix(400))")
                }
                usleep(20_000)
            }
            return NginxLab(
                plainPort: ports[0], tlsPort: ports[1], frontPort: ports[2], caFile: dir + "/ca.pem",
                accessLog: directory.appendingPathComponent("access.log"), shell: shell)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Stops nginx and removes its directory.
    func stop() { shell.stop() }

    /// How many connections carried the logged requests whose target contains `marker`,
    /// once `count` of them are logged (nginx logs a request once it has finished it).
    func connections(carrying marker: String, count: Int) throws -> Int {
        let deadline = ContinuousClock.now + .seconds(2)
        while true {
            let text = (try? String(contentsOf: accessLog, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n").filter { $0.contains(marker) }
            if lines.count >= count || ContinuousClock.now > deadline {
                guard lines.count == count else {
                    throw BenchError("nginx logged \(lines.count) requests for \(marker), expected \(count)")
                }
                return Set(lines.map { $0.prefix { $0 != " " } }).count
            }
            usleep(20_000)
        }
    }

    // MARK: Setting up

    private static func writeDocuments(to www: URL, listSizes: [Int]) throws {
        let manager = FileManager.default
        for folder in ["items", "lists", "tree"] {
            try manager.createDirectory(at: www.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        for index in 0..<(listSizes.max() ?? 0) {
            let body = #"{"_links":{"self":{"href":"/items/\#(index)"}},"id":"\#(index)"}"#
            try Data(body.utf8).write(to: www.appendingPathComponent("items/\(index)"))
        }
        for size in listSizes {
            let items = (0..<size).map { #"{"href":"/items/\#($0)"}"# }.joined(separator: ",")
            let body = #"{"_links":{"self":{"href":"/lists/\#(size)"},"items":[\#(items)]},"count":\#(size)}"#
            try Data(body.utf8).write(to: www.appendingPathComponent("lists/\(size)"))
        }
        func node(_ id: String, depth: Int) throws {
            var links = #""self":{"href":"\#(id)"}"#
            if depth < 3 {
                links += #","child":["# + (0..<3).map { #"{"href":"\#(id).\#($0)"}"# }.joined(separator: ",") + "]"
                for child in 0..<3 { try node("\(id).\(child)", depth: depth + 1) }
            }
            try Data(#"{"_links":{\#(links)},"id":"\#(id)"}"#.utf8).write(to: www.appendingPathComponent("tree/\(id)"))
        }
        try node("0", depth: 0)
    }

    private static func makeCertificates(in directory: URL, openssl: String) throws {
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Spawn.run(
            openssl,
            ["req", "-x509"] + key + [
                "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=halley-bench CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try Spawn.run(
            openssl,
            ["req"] + key + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=localhost"])
        let extensions =
            "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n"
        try Data(extensions.utf8).write(to: directory.appendingPathComponent("server.ext"))
        try Spawn.run(
            openssl,
            [
                "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                "-CAserial", path("ca.srl"), "-CAcreateserial", "-out", path("server.pem"), "-days", "2",
                "-extfile", path("server.ext"),
            ])
    }

    /// Where an executable is: on `PATH`, or in the `sbin` directories servers are put in.
    private static func executable(_ name: String, package: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/sbin"] {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw BenchError("\(name) is not installed; the nginx scenario needs it (apt-get install \(package))")
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// nginx, started so that it ends with this process however this process ends.
///
/// `/bin/sh` starts a watcher in the background, reading a pipe only this process holds,
/// then replaces itself with nginx (so nginx is this process's child, and its pid the
/// shell's). When the pipe closes (``stop()``, or this process ending in any way) the watcher
/// stops nginx and removes its directory.
///
/// It is started with ``Spawn``: nginx without a master process never unblocks signals, so
/// it must not inherit a Swift thread's mask to see the watcher's SIGTERM.
///
/// Unchecked sendability is sound: `pid`, `writeEnd` and `directory` never change after
/// `init`; `reaped` and `closed` are only read and changed under `lock`.
private final class ProcessBox: @unchecked Sendable {
    private let pid: pid_t
    private let writeEnd: Int32
    private let directory: String
    private let lock = NSLock()
    /// Whether the child has been waited for, and whether the pipe is closed.
    private var reaped = false
    private var closed = false

    private init(pid: pid_t, writeEnd: Int32, directory: String) {
        self.pid = pid
        self.writeEnd = writeEnd
        self.directory = directory
    }

    static func supervise(_ command: String, removing directory: String) throws -> ProcessBox {
        let input = try Spawn.makePipe()
        let dir = "'" + directory.replacingOccurrences(of: "'", with: "'\\''") + "'"
        let script =
            "exec 3<&0 0</dev/null >\(dir)/nginx.out 2>&1; "
            + "(read line <&3; kill $$ 2>/dev/null; sleep 1; rm -rf \(dir)) & exec \(command) 3<&-"
        let pid: pid_t
        do {
            pid = try Spawn.start("/bin/sh", ["-c", script], stdin: input.read)
        } catch {
            close(input.read)
            close(input.write)
            throw error
        }
        close(input.read)
        return ProcessBox(pid: pid, writeEnd: input.write, directory: directory)
    }

    /// Whether nginx still runs (it exits at once on a bad configuration).
    var isRunning: Bool {
        lock.withLock {
            if !reaped && Spawn.hasExited(pid) { reaped = true }
            return !reaped
        }
    }

    /// Stops nginx, waits for it, removes its directory.
    func stop() {
        lock.withLock {
            if !closed {
                closed = true
                close(writeEnd)
            }
            if !reaped {
                Spawn.wait(pid)
                reaped = true
            }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}

/// Free TCP ports on `127.0.0.1`.
enum FreePorts {
    /// Ports the kernel just handed out (bound, then released: another process could take
    /// one in between, which the caller notices when its server fails to start).
    static func pick(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { for descriptor in sockets { close(descriptor) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let descriptor = socket(AF_INET, streamSocketType, 0)
            guard descriptor >= 0 else { throw BenchError("socket() failed: errno \(errno)") }
            sockets.append(descriptor)
            var address = loopbackAddress(port: 0)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
                }
            }
            guard bound else { throw BenchError("bind() on 127.0.0.1 failed: errno \(errno)") }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }

    /// Whether something accepts connections on the port.
    static func accepts(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, streamSocketType, 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopbackAddress(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
