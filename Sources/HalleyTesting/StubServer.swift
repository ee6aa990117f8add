import Foundation
import Halley

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a ``StubServer`` could not start.
public struct StubServerError: Error, CustomStringConvertible, Sendable {
    /// What failed, in one sentence.
    public let description: String
}

/// A ``StubAPI`` served over HTTP/1.1 on `127.0.0.1` (TCP_NODELAY, keep-alive), from
/// ``StubAPI/serve()``. A thread per connection; it stops, closing every connection, when this
/// value is released or ``stop()`` is called.
///
/// ```swift
/// let server = try api.serve()
/// let manager = ResourceManager(requester: CurlRequester())
/// let root = try await manager.document(at: server.url("/"))
/// ```
///
/// Not on watchOS, where an app cannot listen on a socket (watchOS keeps low-level networking
/// to a few kinds of app, and none of them serves): use ``StubAPI/requester`` there.
@available(watchOS, unavailable, message: "watchOS apps cannot listen on a socket; use StubAPI.requester")
public final class StubServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    public let baseURL: URL
    /// The port the server picked.
    public let port: Int
    private let core: Core

    init(api: StubAPI) throws(StubServerError) {
        core = try Core(api: api)
        port = core.port
        baseURL = URL(string: "http://127.0.0.1:\(core.port)")!
    }

    deinit {
        core.stop()
    }

    /// The URL of `path` (with its query) on this server.
    public func url(_ path: String) -> URL {
        URL(string: path, relativeTo: baseURL)?.absoluteURL ?? baseURL
    }

    /// Stops accepting, closes every connection. Idempotent.
    public func stop() {
        core.stop()
    }

    /// The listening socket and the connections, shared with the server's threads (which
    /// hold this, not the ``StubServer``, so releasing that stops them).
    final class Core: Sendable {
        let port: Int
        private let api: StubAPI
        private let listener: Int32
        /// The open connections, to shut down on ``stop()``; `nil` once stopped.
        private let connections = LockedValue<Set<Int32>?>([])

        init(api: StubAPI) throws(StubServerError) {
            self.api = api
            #if canImport(Glibc)
                let stream = Int32(SOCK_STREAM.rawValue)
            #else
                let stream = SOCK_STREAM
            #endif
            let listener = socket(AF_INET, stream, 0)
            guard listener >= 0 else { throw StubServerError(description: "socket() failed: errno \(errno)") }
            var yes: Int32 = 1
            setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            #if canImport(Darwin)
                address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0, listen(listener, 128) == 0 else {
                let code = errno
                close(listener)
                throw StubServerError(description: "binding 127.0.0.1 failed: errno \(code)")
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
            }
            self.listener = listener
            port = Int(UInt16(bigEndian: address.sin_port))
            Thread.detachNewThread { [self] in acceptLoop() }
        }

        func stop() {
            // Under the lock: a connection's thread closes its descriptor under it too, so
            // none is shut down after it was closed (and perhaps reused by someone else).
            connections.withLock { open in
                guard let connections = open else { return }
                open = nil
                // Wakes the accept loop (which closes the listener) and every blocked read.
                shutdown(listener, Int32(SHUT_RDWR))
                for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
            }
        }

        private var stopped: Bool { connections.get() == nil }

        private func acceptLoop() {
            defer { close(listener) }
            while !stopped {
                // poll with a timeout as well, for platforms where shutdown() of a listening
                // socket does not wake accept().
                var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 200) > 0, !stopped else { continue }
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                var noDelay: Int32 = 1
                setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
                #if canImport(Darwin)
                    setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &noDelay, socklen_t(MemoryLayout<Int32>.size))
                #endif
                let admitted = connections.withLock { open -> Bool in
                    guard open != nil else { return false }
                    open?.insert(connection)
                    return true
                }
                guard admitted else {
                    close(connection)
                    return
                }
                Thread.detachNewThread { [self] in serve(connection) }
            }
        }

        /// Answers requests on one connection, in order, until either side closes it.
        private func serve(_ connection: Int32) {
            var resets = false
            defer {
                connections.withLock { open in
                    _ = open?.remove(connection)
                    if resets {
                        // A reset: close with a zero linger time, so the peer gets RST, not FIN.
                        var option = linger(l_onoff: 1, l_linger: 0)
                        setsockopt(
                            connection, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout.size(ofValue: option)))
                    }
                    close(connection)
                }
            }
            var reader = RequestReader(connection: connection)
            while !stopped, let request = reader.next() {
                let outcome = api.answer(request.request)
                if let latency = outcome.latency, latency > .zero {
                    let (seconds, attoseconds) = latency.components
                    usleep(useconds_t(max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)))
                }
                switch outcome.kind {
                case .reset:
                    resets = true
                    return
                case .truncated(let response):
                    let bytes = Self.encode(response, method: request.request.method, keepAlive: false)
                    _ = Self.writeAll(connection, Array(bytes.prefix(bytes.count - max(1, response.body.count / 2))))
                    return
                case .response(let response):
                    let bytes = Self.encode(response, method: request.request.method, keepAlive: request.keepAlive)
                    guard Self.writeAll(connection, bytes), request.keepAlive else { return }
                case .misdeclared(let error):
                    // Declared twice after the server started: a test's mistake, told to its client.
                    let response = StubResponse.problem(status: 500, detail: error.description)
                    let bytes = Self.encode(response, method: request.request.method, keepAlive: request.keepAlive)
                    guard Self.writeAll(connection, bytes), request.keepAlive else { return }
                }
            }
        }

        private static func encode(_ response: StubResponse, method: RequestMethod, keepAlive: Bool) -> [UInt8] {
            var head = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
            for field in response.headers where field.name.lowercased() != "content-length" {
                head += "\(field.name): \(field.value)\r\n"
            }
            head += "Content-Length: \(response.body.count)\r\n"
            if !keepAlive { head += "Connection: close\r\n" }
            head += "\r\n"
            return Array(head.utf8) + (method == .head ? [] : Array(response.body))
        }

        private static func reason(_ status: Int) -> String {
            switch status {
            case 200: "OK"
            case 201: "Created"
            case 204: "No Content"
            case 301: "Moved Permanently"
            case 302: "Found"
            case 304: "Not Modified"
            case 400: "Bad Request"
            case 401: "Unauthorized"
            case 403: "Forbidden"
            case 404: "Not Found"
            case 429: "Too Many Requests"
            case 500: "Internal Server Error"
            case 503: "Service Unavailable"
            default: "Status \(status)"
            }
        }

        #if canImport(Glibc)
            /// A write to a connection the client closed fails instead of raising SIGPIPE.
            private static let noSignal = Int32(MSG_NOSIGNAL)
        #else
            // Darwin has no MSG_NOSIGNAL; each connection sets SO_NOSIGPIPE instead.
            private static let noSignal: Int32 = 0
        #endif

        private static func writeAll(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes {
                    send(connection, $0.baseAddress! + offset, bytes.count - offset, noSignal)
                }
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }
}

/// Reads HTTP/1.1 requests off a connection: the head up to the blank line, then a
/// `Content-Length` body.
private struct RequestReader {
    let connection: Int32
    private var pending: [UInt8] = []

    init(connection: Int32) {
        self.connection = connection
    }

    /// The next request, or `nil` when the connection ends or sends something unreadable.
    mutating func next() -> (request: StubRequest, keepAlive: Bool)? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var end = Self.firstIndex(of: terminator, in: pending)
        while end == nil {
            guard fill() else { return nil }
            end = Self.firstIndex(of: terminator, in: pending)
        }
        guard let end else { return nil }
        let head = String(decoding: pending[..<end], as: UTF8.self)
        pending.removeFirst(end + 4)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var headers = HeaderFields()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.merge(HeaderFields([(String(line[..<colon]), value)]))
        }
        let length = headers["Content-Length"].flatMap(Int.init) ?? 0
        while pending.count < length {
            guard fill() else { return nil }
        }
        let body = Data(pending.prefix(length))
        pending.removeFirst(length)
        let keepAlive = headers["Connection"]?.lowercased() != "close" && requestLine[2] == "HTTP/1.1"
        let request = StubRequest(
            method: RequestMethod(rawValue: String(requestLine[0])), path: String(requestLine[1]), headers: headers,
            body: body)
        return (request, keepAlive)
    }

    private mutating func fill() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        pending.append(contentsOf: buffer[0..<count])
        return true
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
        }
        return nil
    }
}
