import Foundation

/// `halley-bench --serve-nginx`: the `nginx` scenario's lab (``NginxLab`` in front of
/// ``BenchServer``) for timing whole processes from outside (`halley get`, `curl`), until
/// stdin reaches end of file.
///
/// It prints, one per line:
///
///     ROOT https://127.0.0.1:<front>/wide?n=200&ms=20
///     CA <the CA file>
///     CURL <a curl config file: the root's 200 links, each to /dev/null>
///     READY
enum NginxLabServer {
    /// The fan-out's width and each response's latency, as the scenario's part (c).
    static let width = 200
    static let latency = 20

    /// Serves until stdin closes; never returns.
    static func serve() -> Never {
        do {
            let backend = try BenchServer.start()
            let lab = try NginxLab.start(listSizes: [], backend: backend)
            let items = (0..<width).map { lab.front("/item/\($0)?ms=\(latency)") }
            let config = FileManager.default.temporaryDirectory
                .appendingPathComponent("halley-bench-curl-\(UUID().uuidString).txt")
            let lines = items.map { "url = \"\($0)\"\noutput = \"/dev/null\"\n" }.joined()
            try Data(lines.utf8).write(to: config)
            let announcement = """
                ROOT \(lab.front("/wide?n=\(width)&ms=\(latency)"))
                CA \(lab.caFile)
                CURL \(config.path)
                READY

                """
            FileHandle.standardOutput.write(Data(announcement.utf8))
            var byte: UInt8 = 0
            while read(0, &byte, 1) > 0 {}
            try? FileManager.default.removeItem(at: config)
            lab.stop()
            _ = backend
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("halley-bench: --serve-nginx: \(error)\n".utf8))
            exit(1)
        }
    }
}
