import Foundation

/// ``LoopbackServer`` run as a child process (this binary with `--serve-transport`) on
/// `127.0.0.1` and a free port.
///
/// The server exits when its stdin reaches end of file; this object keeps the write end of
/// that pipe, so the server ends with the benchmark however the benchmark ends.
final class BenchServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    let baseURL: URL
    private let process: Process
    private let input: Pipe

    private init(baseURL: URL, process: Process, input: Pipe) {
        self.baseURL = baseURL
        self.process = process
        self.input = input
    }

    /// Starts the server and waits for its port.
    ///
    /// - Throws: ``BenchError`` when it does not start.
    static func start() throws -> BenchServer {
        guard let executable = Bundle.main.executableURL else { throw BenchError("cannot locate halley-bench itself") }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--serve-transport"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            throw BenchError("cannot run \(executable.path) --serve-transport: \(error)")
        }
        var bytes = Data()
        while !bytes.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            bytes.append(chunk)
        }
        let line = String(decoding: bytes, as: UTF8.self).prefix { $0 != "\n" }
        let fields = line.split(separator: " ")
        guard fields.count == 2, fields[0] == "PORT", let port = Int(fields[1]),
            let url = URL(string: "http://127.0.0.1:\(port)")
        else {
            if process.isRunning { process.terminate() }
            throw BenchError("the transport bench server did not start: read \"\(line)\"")
        }
        return BenchServer(baseURL: url, process: process, input: input)
    }

    /// The absolute URL of `path` (with its query).
    func url(_ path: String) throws -> URL {
        guard let url = URL(string: baseURL.absoluteString + path) else { throw BenchError("bad path \(path)") }
        return url
    }
}
