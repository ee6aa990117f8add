import CHalleyCurl
import Foundation

/// The `nginx` scenario's baseline: libcurl's multi interface driven directly, without
/// Halley, loaded the way `CurlRequester` loads it (`halley_curl_load`: `dlopen` of
/// `libcurl.so.4`, our own declarations).
///
/// It runs the loop `CurlRequester`'s engine runs (`curl_multi_perform`, finished transfers
/// from `curl_multi_info_read`, sleep in `curl_multi_poll`) with the same multi options and
/// the HTTP options that change what goes over the wire (HTTP version, `PIPEWAIT` over TLS,
/// the same trust roots), and does the least a client can: each body is appended to a
/// buffer, the status read, nothing parsed. Easy handles are reused, as libcurl recommends.
/// What Halley costs on top of this is Halley's.
///
/// Unchecked sendability is sound: the multi handle, the idle easy handles and the counters
/// are used by one thread at a time. ``fetch(_:limit:)`` runs its loop on a thread of its own
/// and returns when that thread is done with them, and the scenario awaits every fetch
/// before the next.
final class RawCurlClient: @unchecked Sendable {
    private let multi: OpaquePointer
    private var idle: [OpaquePointer] = []
    private let caFile: String?
    private let pipeWait: Bool
    /// `CURLOPT_HTTPHEADER` for every handle, when the client sends header lines of its own.
    private let headerList: OpaquePointer?
    private let decodesResponses: Bool

    /// What a batch fetched.
    struct Outcome: Sendable {
        var succeeded = 0
        var failed = 0
        var bytes = 0
        /// The first failure, for the error message.
        var firstFailure: String?
    }

    /// - Parameters:
    ///   - caFile: The only CA trusted (HTTPS), as `TLSConfiguration(trustRoots: .only([.file]))`
    ///     sets it; `nil` for plain HTTP.
    ///   - headerLines: `Name: value` lines sent with every request (`curl -H`).
    ///   - decodesResponses: Asks for every encoding this libcurl decodes and decodes it
    ///     (`CURLOPT_ACCEPT_ENCODING` of "", `curl --compressed`).
    init(
        caFile: String?, maxConnectionsPerHost: Int = 64, headerLines: [String] = [], decodesResponses: Bool = false
    ) throws {
        var reason = [CChar](repeating: 0, count: 256)
        guard reason.withUnsafeMutableBufferPointer({ halley_curl_load($0.baseAddress, $0.count) }) == 1 else {
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw BenchError("libcurl cannot be loaded: \(text)")
        }
        guard let multi = halley_curl_multi_init() else { throw BenchError("curl_multi_init failed") }
        self.multi = multi
        self.caFile = caFile
        pipeWait = caFile != nil
        headerList = headerLines.reduce(nil as OpaquePointer?) { list, line in halley_curl_slist_append(list, line) }
        self.decodesResponses = decodesResponses
        _ = halley_curl_multi_setopt_long(multi, Multi.pipelining, 2)  // CURLPIPE_MULTIPLEX
        _ = halley_curl_multi_setopt_long(multi, Multi.maxHostConnections, maxConnectionsPerHost)
        _ = halley_curl_multi_setopt_long(multi, Multi.maxConnects, max(16, maxConnectionsPerHost))
    }

    deinit {
        for easy in idle { halley_curl_easy_cleanup(easy) }
        _ = halley_curl_multi_cleanup(multi)
        halley_curl_slist_free_all(headerList)
    }

    /// Fetches every URL, `limit` at a time, on a thread of its own.
    func fetch(_ urls: [String], limit: Int) async -> Outcome {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                // Named in the kernel (`comm`) so profiles tell it from Halley's `halley.curl`.
                try? FileHandle(forWritingAtPath: "/proc/thread-self/comm")?.write(contentsOf: Data("raw.curl".utf8))
                continuation.resume(returning: self.run(urls, limit: limit))
            }
            thread.start()
        }
    }

    private func run(_ urls: [String], limit: Int) -> Outcome {
        var outcome = Outcome()
        var next = 0
        var active = 0
        func startMore() {
            while active < limit && next < urls.count {
                guard let easy = idle.popLast() ?? makeHandle() else {
                    outcome.failed += 1
                    outcome.firstFailure = outcome.firstFailure ?? "curl_easy_init failed"
                    next += 1
                    continue
                }
                let context = Unmanaged.passRetained(RawTransfer()).toOpaque()
                _ = halley_curl_easy_setopt_pointer(easy, Option.url, urls[next])
                _ = halley_curl_easy_setopt_pointer(easy, Option.writeData, context)
                _ = halley_curl_easy_setopt_pointer(easy, Option.privateData, context)
                _ = halley_curl_multi_add_handle(multi, easy)
                next += 1
                active += 1
            }
        }
        startMore()
        while active > 0 {
            var running: Int32 = 0
            _ = halley_curl_multi_perform(multi, &running)
            var finished: OpaquePointer?
            var code: Int32 = 0
            while halley_curl_multi_next_done(multi, &finished, &code) == 1, let easy = finished {
                var context: UnsafeMutableRawPointer?
                _ = halley_curl_easy_getinfo_pointer(easy, Info.privateData, &context)
                _ = halley_curl_multi_remove_handle(multi, easy)
                active -= 1
                idle.append(easy)
                guard let context else { continue }
                let transfer = Unmanaged<RawTransfer>.fromOpaque(context).takeRetainedValue()
                var status = 0
                _ = halley_curl_easy_getinfo_long(easy, Info.responseCode, &status)
                if code == 0 && status == 200 {
                    outcome.succeeded += 1
                    outcome.bytes += transfer.body.count
                } else {
                    outcome.failed += 1
                    if outcome.firstFailure == nil {
                        let text = halley_curl_easy_strerror(code).map { String(cString: $0) } ?? "?"
                        outcome.firstFailure = "CURLcode \(code) (\(text)), HTTP \(status)"
                    }
                }
            }
            startMore()
            if active > 0 { _ = halley_curl_multi_poll(multi, 1_000) }
        }
        return outcome
    }

    private func makeHandle() -> OpaquePointer? {
        guard let easy = halley_curl_easy_init() else { return nil }
        _ = halley_curl_easy_setopt_callback(easy, Option.writeFunction, rawWrite)
        _ = halley_curl_easy_setopt_long(easy, Option.noSignal, 1)
        _ = halley_curl_easy_setopt_long(easy, Option.httpVersion, 4)  // CURL_HTTP_VERSION_2TLS
        if let caFile {
            _ = halley_curl_easy_setopt_pointer(easy, Option.caInfo, caFile)
            _ = halley_curl_easy_setopt_pointer(easy, Option.caPath, nil)
        }
        _ = halley_curl_easy_setopt_long(easy, Option.pipeWait, pipeWait ? 1 : 0)
        if let headerList { _ = halley_curl_easy_setopt_pointer(easy, Option.httpHeader, UnsafeRawPointer(headerList)) }
        if decodesResponses { _ = halley_curl_easy_setopt_pointer(easy, Option.acceptEncoding, "") }
        return easy
    }

    /// libcurl's option and info numbers (`curl/curl.h`), as in `CurlABI`.
    private enum Option {
        static let writeData: Int32 = 10_001
        static let url: Int32 = 10_002
        static let writeFunction: Int32 = 20_011
        static let caInfo: Int32 = 10_065
        static let httpVersion: Int32 = 84
        static let caPath: Int32 = 10_097
        static let noSignal: Int32 = 99
        static let privateData: Int32 = 10_103
        static let pipeWait: Int32 = 237
        static let httpHeader: Int32 = 10_023
        static let acceptEncoding: Int32 = 10_102
    }

    private enum Info {
        static let responseCode: Int32 = 0x20_0000 + 2
        static let privateData: Int32 = 0x10_0000 + 21
    }

    private enum Multi {
        static let pipelining: Int32 = 3
        static let maxConnects: Int32 = 6
        static let maxHostConnections: Int32 = 7
    }
}

/// One response's body as it arrives.
private final class RawTransfer {
    var body = Data()
}

/// `CURLOPT_WRITEFUNCTION`: appends to the transfer's body.
private let rawWrite: halley_curl_data_callback = { data, size, count, context in
    guard let context, let data else { return 0 }
    let length = size * count
    let transfer = Unmanaged<RawTransfer>.fromOpaque(context).takeUnretainedValue()
    data.withMemoryRebound(to: UInt8.self, capacity: length) { transfer.body.append($0, count: length) }
    return length
}
