import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The transport scenario's HTTP/1.1 server: a thread per keep-alive connection with
/// blocking reads and writes, so a request costs the server two system calls and the
/// client's figures are the client's. It runs in a process of its own
/// (`halley-bench --serve-transport`), so the client's CPU time excludes it.
///
/// It binds 127.0.0.1 only, prints `PORT <n>`, and exits when its stdin reaches end of file.
///
/// Routes (`ms` is the latency added before answering, default 0):
///     /tree/<id>?fan=F&depth=D&ms=L  HAL document linking F children down to depth D
///     /wide?n=N&ms=L                 HAL document linking N items /item/<i>?ms=L
///     /item/<i>?ms=L                 a small HAL document
enum LoopbackServer {
    /// Serves until stdin closes; never returns.
    static func serve() -> Never {
        let listener = socket(AF_INET, streamSocketType, 0)
        guard listener >= 0 else { fail("socket") }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopbackAddress(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 1024) == 0 else { fail("bind/listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        FileHandle.standardOutput.write(Data("PORT \(UInt16(bigEndian: address.sin_port))\n".utf8))

        Thread.detachNewThread {
            var byte: UInt8 = 0
            while read(0, &byte, 1) > 0 {}
            exit(0)
        }
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 { continue }
            var noDelay: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            Thread.detachNewThread { serve(connection) }
        }
    }

    private static func fail(_ what: String) -> Never {
        FileHandle.standardError.write(Data("halley-bench: transport server: \(what) failed: errno \(errno)\n".utf8))
        exit(1)
    }

    /// Answers requests on one connection, in order, until the client closes it.
    private static func serve(_ connection: Int32) {
        defer { close(connection) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let terminator: [UInt8] = [13, 10, 13, 10]
        while true {
            while let end = firstRange(of: terminator, in: pending) {
                let head = pending[..<end]
                pending.removeFirst(end + 4)
                let line = head.prefix { $0 != 13 }
                let parts = line.split(separator: UInt8(ascii: " "))
                let target = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : "/"
                let (latency, response) = answer(target)
                if latency > 0 { usleep(useconds_t(latency * 1000)) }
                guard writeAll(connection, response) else { return }
            }
            let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            pending.append(contentsOf: buffer[0..<count])
        }
    }

    private static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
        }
        return nil
    }

    private static func writeAll(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(connection, $0.baseAddress! + offset, bytes.count - offset) }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// The latency in milliseconds and the whole response for a request target.
    private static func answer(_ target: String) -> (Int, [UInt8]) {
        let (path, query) = split(target)
        let latency = Int(query["ms"] ?? "0") ?? 0
        let body: String
        if path.hasPrefix("/tree/") {
            let node = String(path.dropFirst("/tree/".count))
            let fan = Int(query["fan"] ?? "3") ?? 3
            let depth = Int(query["depth"] ?? "3") ?? 3
            var links = #""self":{"href":"\#(path)"}"#
            if node.filter({ $0 == "." }).count < depth {
                let children = (0..<fan).map {
                    #"{"href":"/tree/\#(node).\#($0)?fan=\#(fan)&depth=\#(depth)&ms=\#(latency)"}"#
                }
                links += #","child":[\#(children.joined(separator: ","))]"#
            }
            body = #"{"_links":{\#(links)},"id":"\#(node)"}"#
        } else if path == "/wide" {
            let count = Int(query["n"] ?? "100") ?? 100
            let items = (0..<count).map { #"{"href":"/item/\#($0)?ms=\#(latency)"}"# }
            body = #"{"_links":{"self":{"href":"/wide"},"items":[\#(items.joined(separator: ","))]},"count":\#(count)}"#
        } else if path.hasPrefix("/item/") {
            body = #"{"_links":{"self":{"href":"\#(path)"}},"id":"\#(path.dropFirst("/item/".count))"}"#
        } else {
            let missing = #"{"error":"not found"}"#
            return (
                0,
                Array(
                    ("HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: \(missing.utf8.count)\r\n\r\n"
                        + missing).utf8)
            )
        }
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/hal+json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        return (latency, Array((head + body).utf8))
    }

    private static func split(_ target: String) -> (String, [String: String]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, [:]) }
        var query: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { query[String(parts[0])] = String(parts[1]) }
        }
        return (String(target[..<mark]), query)
    }
}
