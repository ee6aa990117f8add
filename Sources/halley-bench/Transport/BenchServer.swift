import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ``LoopbackServer`` run as a child process (this binary with `--serve-transport`) on
/// `127.0.0.1` and a free port.
///
/// The server exits when its stdin reaches end of file; this object keeps the write end of
/// that pipe, so the server ends with the benchmark however the benchmark ends. It is
/// started with ``Spawn``, so the transport scenarios run under valgrind too.
final class BenchServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    let baseURL: URL
    private let pid: pid_t
    private let input: Int32

    private init(baseURL: URL, pid: pid_t, input: Int32) {
        self.baseURL = baseURL
        self.pid = pid
        self.input = input
    }

    deinit {
        close(input)
        Spawn.wait(pid)
    }

    /// Starts the server and waits for its port.
    ///
    /// - Throws: ``BenchError`` when it does not start.
    static func start() throws -> BenchServer {
        guard let executable = Bundle.main.executableURL else { throw BenchError("cannot locate halley-bench itself") }
        let input = try Spawn.makePipe()
        let output = try Spawn.makePipe()
        let pid: pid_t
        do {
            pid = try Spawn.start(executable.path, ["--serve-transport"], stdin: input.read, stdout: output.write)
        } catch {
            for descriptor in [input.read, input.write, output.read, output.write] { close(descriptor) }
            throw BenchError("cannot run \(executable.path) --serve-transport: \(error)")
        }
        close(input.read)
        close(output.write)
        let line = Spawn.readLine(output.read)
        close(output.read)
        let fields = line.split(separator: " ")
        guard fields.count == 2, fields[0] == "PORT", let port = Int(fields[1]),
            let url = URL(string: "http://127.0.0.1:\(port)")
        else {
            close(input.write)
            Spawn.wait(pid)
            throw BenchError("the transport bench server did not start: read \"\(line)\"")
        }
        return BenchServer(baseURL: url, pid: pid, input: input.write)
    }

    /// The absolute URL of `path` (with its query).
    func url(_ path: String) throws -> URL {
        guard let url = URL(string: baseURL.absoluteString + path) else { throw BenchError("bad path \(path)") }
        return url
    }
}
