internal import CHalleyCurl
import Foundation
import HalleyHAL

/// One HTTP exchange for the curl engine, without redirects: what ``CurlRequester`` hands to
/// the engine's thread. Plain values only, so it crosses threads as it is.
struct CurlJob: Sendable {
    /// The URL, already checked to be `http` or `https`, as the engine carries it.
    let location: LazyURL
    /// The URL, for an error: parsed from ``location`` on each read.
    var url: URL { location.url }
    /// Its text and whether it is HTTPS, worked out by the caller rather than on the
    /// engine's one thread.
    var urlString: String { location.text }
    let isHTTPS: Bool
    let method: RequestMethod
    /// The request's fields, CR and LF already out of them, without a `Proxy-Authorization`.
    let headerFields: [HeaderFields.Field]
    let body: Data?
    /// The time left for this exchange; `nil` for no limit.
    var timeout: Duration?
    let maxBodyBytes: Int?
    let maxHeaderBytes: Int
    let maxHeaderCount: Int
    /// Open a new connection rather than reuse one (the retry after a stale connection).
    var freshConnection = false
    /// The proxy for this URL, `nil` for a direct connection.
    var proxy: CurlProxy?
    /// Header lines for the proxy only (`CURLOPT_PROXYHEADER`): the request's own
    /// `Proxy-Authorization`.
    var proxyHeaderLines: [String] = []
    /// The client certificate and key as errors name them, when there is one.
    var identityNames: (certificate: String, key: String)?
    /// Measure the exchange (``ResourceRequest/collectsMetrics``).
    var collectsMetrics = false
}

/// A request failed on a reused keep-alive connection before a valid response arrived: most
/// often because the previous response on it sent more bytes than its `Content-Length`, and
/// the excess was read as this response. An idempotent request can be sent again on a fresh
/// connection, as browsers do.
struct CurlStaleConnectionError: Error {
    /// The error to report when the request cannot be retried.
    let underlying: any Error
}

/// How a transfer's caller waits. The engine resumes each exactly once (a transfer leaves the
/// loop's table of active transfers in the same step that resumes it), but the checked kind
/// stays: resumed from the engine's thread, an unsafe continuation races with the awaiting
/// task's own bookkeeping as far as ThreadSanitizer can see, and the checked one costs
/// little next to a request.
typealias CurlContinuation = CheckedContinuation<CurlReply, any Error>

/// What came back: the last response's status, its header fields and its decoded body.
struct CurlReply: Sendable {
    let status: Int
    let headers: HeaderFields
    let body: Data
    /// How it travelled, when the job asked.
    var metrics: TransferMetrics?
}

/// The header fields the response callback split out (``halley_curl_response``), as
/// ``HeaderFields``: in order, repeated names combined with `", "` (as URLSession does). Text
/// is UTF-8 where valid, Latin-1 otherwise (RFC 9110 allows such bytes in values).
///
/// Made on the loop's thread, straight from the handle's buffers: the callback already found
/// each name and value, so this only makes their strings and joins repeated names.
enum CurlHeaderFields {
    /// Fields past this many are found through a table rather than by comparing names.
    private static let linearLookupLimit = 24

    private typealias Block = UnsafeBufferPointer<UInt8>

    /// The name and value strings of the last response's field lines on one handle, by
    /// position: those of the fields the response keeps (``halley_curl_response_keep_fields``).
    /// A server answers a run of requests with much the same fields in the same order
    /// (`Server`, `Date`, `Content-Type`, `Connection`, ...): a line the callback found
    /// byte for byte the kept one at its position takes its strings again, rather than new
    /// strings (each validates its bytes, and allocates past 15).
    struct Recent {
        /// The strings are kept for this many lines, each of at most ``maxKeptBytes``:
        /// what a handle holds between transfers stays small.
        static let maxKeptLines = 32
        static let maxKeptBytes = 128

        fileprivate var lines: [(name: String, value: String)] = []
    }

    static func headers(of response: UnsafeMutablePointer<halley_curl_response>, recent: inout Recent) -> HeaderFields {
        let count = response.pointee.field_count
        guard count > 0, let fieldStart = response.pointee.fields else { return HeaderFields() }
        let distinctNames = halley_curl_response_mark_repeats(response) != 0
        // The next response compares with these fields, as `recent` now gets their strings.
        defer { halley_curl_response_keep_fields(response) }
        let spans = UnsafeBufferPointer(start: fieldStart, count: count)
        // No block when every field is empty (`:`): such fields are still fields.
        let block = Block(start: response.pointee.header_block, count: response.pointee.header_length)
        var fields: [HeaderFields.Field] = []
        fields.reserveCapacity(count)
        if distinctNames {
            // Nearly every response: each line is a field of its own, nothing to join.
            for (index, span) in spans.enumerated() {
                let (name, value) = field(index, span, block, &recent)
                fields.append(HeaderFields.Field(name: name, value: value))
            }
            return HeaderFields(distinctFields: fields)
        }
        // Where each kept field's name is in the block, to find a repeated name (any case)
        // without making strings; a table by lowercased name once there are many.
        var names: [Range<Int>] = []
        names.reserveCapacity(min(count, linearLookupLimit + 1))
        var table: [String: Int]?
        for (index, span) in spans.enumerated() {
            let name = span.name_offset..<(span.name_offset + span.name_length)
            let (nameText, value) = field(index, span, block, &recent)
            let existing: Int?
            if let table {
                existing = table[lowercased(block, name)]
            } else {
                existing = names.firstIndex { sameName(block, $0, name) }
            }
            if let existing {
                let field = fields[existing]
                fields[existing] = HeaderFields.Field(name: field.name, value: field.value + ", " + value)
                continue
            }
            fields.append(HeaderFields.Field(name: nameText, value: value))
            if table != nil {
                table?[lowercased(block, name)] = fields.count - 1
            } else {
                names.append(name)
                if names.count > linearLookupLimit {
                    var built: [String: Int] = [:]
                    for (index, range) in names.enumerated() { built[lowercased(block, range)] = index }
                    table = built
                }
            }
        }
        return HeaderFields(distinctFields: fields)
    }

    /// The strings of the line at `index`: those kept at its position when the callback found
    /// its bytes the same, new ones otherwise (kept for the next response).
    @inline(__always)
    private static func field(
        _ index: Int, _ span: halley_curl_field, _ block: Block, _ recent: inout Recent
    ) -> (name: String, value: String) {
        let name = span.name_offset..<(span.name_offset + span.name_length)
        let value = span.value_offset..<(span.value_offset + span.value_length)
        if span.repeated != 0, index < recent.lines.count,
            case (let keptName, let keptValue) = recent.lines[index],
            // An empty pair stands for strings too long to keep.
            keptName.utf8.count == name.count && keptValue.utf8.count == value.count
        {
            return (keptName, keptValue)
        }
        let made = (text(block, name, ascii: span.ascii != 0), text(block, value, ascii: span.ascii != 0))
        keep(made.0, made.1, at: index, in: &recent)
        return made
    }

    /// Keeps a line's strings at its position for the handle's next response, within the
    /// limits; a longer one keeps an empty pair, which only an empty line matches.
    private static func keep(_ name: String, _ value: String, at index: Int, in recent: inout Recent) {
        guard index < Recent.maxKeptLines else { return }
        let small = name.utf8.count <= Recent.maxKeptBytes && value.utf8.count <= Recent.maxKeptBytes
        let line = small ? (name, value) : ("", "")
        if index < recent.lines.count {
            recent.lines[index] = line
        } else {
            // Lines are visited in order, so an index past the end is always the next one.
            recent.lines.append(line)
        }
    }

    /// Names compare without regard to ASCII case (RFC 9110, 5.1).
    private static func sameName(_ block: Block, _ one: Range<Int>, _ other: Range<Int>) -> Bool {
        guard one.count == other.count else { return false }
        for offset in 0..<one.count
        where lower(block[one.lowerBound + offset]) != lower(block[other.lowerBound + offset]) {
            return false
        }
        return true
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    private static func lowercased(_ block: Block, _ range: Range<Int>) -> String {
        String(decoding: block[range].map(lower), as: UTF8.self)
    }

    /// ASCII, which the callback already checked, is copied as it is: no validation pass.
    private static func text(_ block: Block, _ range: Range<Int>, ascii: Bool) -> String {
        let buffer = Block(rebasing: block[range])
        if ascii {
            return String(unsafeUninitializedCapacity: buffer.count) { $0.initialize(fromContentsOf: buffer) }
        }
        let decoded = String(decoding: buffer, as: UTF8.self)
        if decoded.utf8.elementsEqual(buffer) { return decoded }
        return String(String.UnicodeScalarView(buffer.map { Unicode.Scalar($0) }))
    }
}

/// One exchange: made by ``CurlRequester`` for each request it sends, run by the engine's
/// loop thread. One object per exchange carries the job to the loop, is what a cancellation
/// names, and holds the loop's state of it: no separate box for the job, the cancellation
/// state or the loop's table of transfers.
///
/// Ownership: the loop keeps it in its list of running transfers while the easy handle is in
/// the multi handle, and drops it after removing the handle, so the unretained pointer
/// libcurl holds for it (`CURLOPT_PRIVATE`) is valid whenever the loop reads it back (the next
/// transfer on the handle sets its own before the handle goes back into the multi handle).
///
/// Unchecked sendability is sound: ``job`` is immutable and `Sendable`. The requester's task
/// writes ``continuation`` once, before ``CurlEngine/start(_:)`` queues the transfer under
/// the mailbox lock, and touches no variable after; from the loop's taking of its start
/// command (under the same lock, so after that write) every variable (the phase, the
/// continuation, the handle, the list position, the metrics) is read and written on the loop
/// thread only. The cancellation handler only passes the reference to
/// ``CurlEngine/cancel(_:)``, which queues it the same way; a cancel the loop takes before the
/// start command writes only ``phase``, which the requester's task never reads or writes (it
/// may still be writing ``continuation``, a separate location). The loop is done with the
/// variables before it resumes the continuation.
final class CurlTransfer: @unchecked Sendable {
    /// Where the exchange stands, as the loop sees it.
    enum Phase {
        /// Made; the loop has not taken its start command yet.
        case waiting
        /// Cancelled before the loop took its start command: the start answers at once.
        case cancelled
        /// Its easy handle is in the multi handle.
        case running
        /// Its continuation has been resumed.
        case finished
    }

    let job: CurlJob
    // The variables are unchecked for exclusive access: one thread at a time uses them (see
    // above), and none is ever passed `inout`, so no two accesses can overlap; the run-time
    // check would cost a call per access.
    @exclusivity(unchecked) var phase = Phase.waiting
    /// The caller's continuation, set by the caller before the start command; taken once,
    /// to resume it.
    @exclusivity(unchecked) var continuation: CurlContinuation?
    /// Its index in the loop's list of running transfers while it runs.
    @exclusivity(unchecked) var runningIndex = 0
    /// The easy handle, lent by the loop from the start command on; the loop takes it back
    /// when the transfer ends.
    @exclusivity(unchecked) private var lentHandle: CurlHandle?
    /// Unreachable without a handle, whatever a server sends: the loop lends one in the start
    /// command before anything else it does with the transfer (`prepare`), and reads this only
    /// for a transfer in its running list (added after `lend`) or a finished one it found
    /// through that handle's `CURLOPT_PRIVATE`. No response byte decides the order.
    var handle: CurlHandle {
        guard let lentHandle else { preconditionFailure("a curl transfer used before the loop lent it a handle") }
        return lentHandle
    }
    var easy: OpaquePointer { handle.easy }

    /// The response as it arrives, read by the handle's callbacks (in C: they run for every
    /// header line and body chunk).
    private var response: UnsafeMutablePointer<halley_curl_response> { handle.response }
    /// The exchange's metrics, read by ``noteMetrics(tlsVersions:)`` while the connection is
    /// still the handle's.
    @exclusivity(unchecked) private var metrics: TransferMetrics?

    init(job: CurlJob) {
        self.job = job
    }

    /// The continuation, leaving none: whoever takes it resumes it, once.
    func takeContinuation() -> CurlContinuation? {
        defer { continuation = nil }
        return continuation
    }

    /// Lends the transfer its easy handle, on the loop thread.
    func lend(_ handle: CurlHandle) {
        lentHandle = handle
    }

    /// The transfer behind a context pointer libcurl passes back.
    static func from(_ context: UnsafeMutableRawPointer) -> CurlTransfer {
        Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    }

    // MARK: Setting up

    /// Sets this request's options on the handle; the ones every request shares were set
    /// when the handle was made (``CurlHandle``), and each option a request may set is set
    /// again by the next, so nothing carries over. An option whose value is the one the
    /// handle's last transfer set is left as it is (``CurlHandle/Applied``): most transfers
    /// of a traversal differ only in their URL.
    ///
    /// - Throws: ``CurlUnavailableError`` when libcurl refuses an option.
    func prepare() throws {
        handle.errorBuffer[0] = 0
        halley_curl_response_reset(
            response, Self.size(job.maxHeaderBytes), Self.size(job.maxHeaderCount), job.maxBodyBytes == nil ? 0 : 1,
            Int64(job.maxBodyBytes ?? 0))
        let context = Unmanaged.passUnretained(self).toOpaque()
        try set(CurlABI.Option.privateData, pointer: context)
        try set(CurlABI.Option.url, string: job.urlString)
        if handle.applied.freshConnection != job.freshConnection {
            try set(CurlABI.Option.freshConnect, job.freshConnection ? 1 : 0)
            handle.applied.freshConnection = job.freshConnection
        }
        // Over TLS, wait for a connection that may multiplex rather than open one per request.
        if handle.applied.pipeWait != job.isHTTPS {
            try set(CurlABI.Option.pipeWait, job.isHTTPS ? 1 : 0)
            handle.applied.pipeWait = job.isHTTPS
        }
        var milliseconds: Int64 = 0  // no limit
        if let timeout = job.timeout {
            // A limit past what 64 bits of milliseconds hold (292 million years) is no limit.
            milliseconds = timeout.wholeMilliseconds.map { max(1, $0) } ?? 0
        }
        try set(CurlABI.Option.timeoutMilliseconds, Int(milliseconds))
        // Only a measured exchange has libcurl report its TLS version (to the handle's
        // callback, never to stderr): verbose mode formats text on every step.
        handle.tlsVersion[0] = 0
        try set(CurlABI.Option.verbose, job.collectsMetrics ? 1 : 0)
        try setMethodAndBody()
        // No `Expect: 100-continue` round trip for a large body. Only a request with a body
        // carries the empty `Expect:`: libcurl compares every line of the list with a dozen
        // names on every request.
        // perf: no line a GET never needs; BENCHMARKS.md, "Why the hot paths look as they do".
        let suppressesExpect = job.body != nil
        if handle.applied.headerFields != job.headerFields || handle.applied.suppressesExpect != suppressesExpect {
            var list: OpaquePointer? = suppressesExpect ? halley_curl_slist_append(nil, "Expect:") : nil
            var asksForEncodings = false
            for field in job.headerFields {
                list = halley_curl_slist_append(list, Self.curlLine(field.name, field.value))
                asksForEncodings = asksForEncodings || field.name.caseInsensitiveEquals("accept-encoding")
            }
            if !asksForEncodings, let line = CurlLibrary.acceptEncodingLine {
                list = halley_curl_slist_append(list, line)
            }
            handle.applied.headerFields = nil
            handle.replaceHeaderList(list)
            try set(CurlABI.Option.httpHeader, pointer: list.map { UnsafeMutableRawPointer($0) })
            handle.applied.headerFields = job.headerFields
            handle.applied.suppressesExpect = suppressesExpect
        }
        try setProxy()
    }

    /// `name: value`, or `name;` for an empty value (libcurl's way to send a field with no
    /// value), made in one allocation rather than by appending the parts.
    static func curlLine(_ name: String, _ value: String) -> String {
        var name = name
        var value = value
        let separator: StaticString = value.isEmpty ? ";" : ": "
        let count = name.utf8.count + separator.utf8CodeUnitCount + value.utf8.count
        return name.withUTF8 { name in
            value.withUTF8 { value in
                separator.withUTF8Buffer { separator in
                    String(unsafeUninitializedCapacity: count) { line in
                        var end = line.initialize(fromContentsOf: name)
                        end = line[end...].initialize(fromContentsOf: separator)
                        return line[end...].initialize(fromContentsOf: value)
                    }
                }
            }
        }
    }

    /// The proxy of this transfer, or none: set every time it changes, because an empty
    /// `CURLOPT_PROXY` is what keeps libcurl from reading the environment's proxy variables
    /// itself (the requester has applied its own rules already).
    private func setProxy() throws {
        // Direct after direct, the common case: nothing to build or compare.
        if job.proxy == nil && job.proxyHeaderLines.isEmpty && handle.applied.proxy?.isDirect == true { return }
        let proxy = CurlHandle.Applied.Proxy(
            url: job.proxy?.url ?? "", user: job.proxy?.user, password: job.proxy?.password,
            headerLines: job.proxyHeaderLines)
        guard handle.applied.proxy != proxy else { return }
        handle.applied.proxy = nil
        try set(CurlABI.Option.proxy, string: proxy.url)
        try check(halley_curl_easy_setopt_pointer(easy, CurlABI.Option.proxyUsername, proxy.user))
        try check(halley_curl_easy_setopt_pointer(easy, CurlABI.Option.proxyPassword, proxy.password))
        var list: OpaquePointer?
        for line in proxy.headerLines { list = halley_curl_slist_append(list, line) }
        handle.replaceProxyHeaderList(list)
        try set(CurlABI.Option.proxyHeader, pointer: list.map { UnsafeMutableRawPointer($0) })
        handle.applied.proxy = proxy
    }

    private func setMethodAndBody() throws {
        let method = job.method.rawValue
        let plainGet = job.method == .get && job.body == nil
        // A plain GET after a plain GET: nothing to undo.
        if plainGet && handle.applied.plainGet { return }
        handle.applied.plainGet = false
        // Back to a plain GET first: no custom method, no HEAD, no upload from the last use.
        try check(halley_curl_easy_setopt_pointer(easy, CurlABI.Option.customRequest, nil))
        try set(CurlABI.Option.httpGet, 1)
        switch (job.method, job.body) {
        case (.get, nil):
            handle.applied.plainGet = true
        case (.head, _):
            try set(CurlABI.Option.noBody, 1)
        case (_, let body?):
            // POSTFIELDSIZE first, so binary bodies are copied whole; then the method's name
            // when it is not POST.
            try check(halley_curl_easy_setopt_offset(easy, CurlABI.Option.postFieldSizeLarge, Int64(body.count)))
            try body.withUnsafeBytes { bytes in
                // An empty body still needs a valid pointer.
                let pointer = bytes.baseAddress ?? UnsafeRawPointer(handle.errorBuffer)
                try check(halley_curl_easy_setopt_pointer(easy, CurlABI.Option.copyPostFields, pointer))
            }
            if job.method != .post { try set(CurlABI.Option.customRequest, string: method) }
        case (.post, nil):
            try set(CurlABI.Option.post, 1)
            try check(halley_curl_easy_setopt_offset(easy, CurlABI.Option.postFieldSizeLarge, 0))
            try check(halley_curl_easy_setopt_pointer(easy, CurlABI.Option.copyPostFields, ""))
        case (_, nil):
            try set(CurlABI.Option.customRequest, string: method)
        }
    }

    private func set(_ option: Int32, _ value: Int) throws {
        try check(halley_curl_easy_setopt_long(easy, option, value))
    }

    private func set(_ option: Int32, pointer: UnsafeMutableRawPointer?) throws {
        try check(halley_curl_easy_setopt_pointer(easy, option, pointer))
    }

    /// libcurl copies string options (since 7.17), so the C string may go away after.
    private func set(_ option: Int32, string: String) throws {
        try check(halley_curl_easy_setopt_pointer(easy, option, string))
    }

    private func check(_ code: Int32) throws {
        try CurlHandle.check(code)
    }

    /// A limit as the callbacks compare it: a negative one refuses what zero refuses.
    private static func size(_ limit: Int) -> Int { max(0, limit) }

    // MARK: Outcome

    /// The reply or the error, once libcurl finished with `code` (a CURLcode).
    func outcome(_ code: Int32) -> Result<CurlReply, any Error> {
        if let failure = callbackFailure() { return .failure(failure) }
        guard code == CurlABI.Code.ok else {
            var connectCode = 0
            if job.proxy != nil { _ = halley_curl_easy_getinfo_long(easy, CurlABI.Info.connectCode, &connectCode) }
            if let security = securityError(
                code: code, detail: String(cString: handle.errorBuffer), connectCode: connectCode)
            {
                // A TLS or proxy failure in the shared vocabulary; a client identity that
                // cannot be used stays the configuration error it is.
                return .failure(TransportError(classifying: security, url: job.url) ?? security)
            }
            let error = error(for: code)
            var connectionsMade = 1
            _ = halley_curl_easy_getinfo_long(easy, CurlABI.Info.connectionsMade, &connectionsMade)
            let garbled = [
                CurlABI.Code.unsupportedProtocol, CurlABI.Code.weirdServerReply, CurlABI.Code.gotNothing,
                CurlABI.Code.receiveError,
            ].contains(code)
            if garbled && connectionsMade == 0 && response.pointee.status == 0 {
                return .failure(CurlStaleConnectionError(underlying: error))
            }
            return .failure(error)
        }
        var responseCode = 0
        _ = halley_curl_easy_getinfo_long(easy, CurlABI.Info.responseCode, &responseCode)
        let headers = CurlHeaderFields.headers(of: response, recent: &handle.recentHeaderLines)
        var length = 0
        let body =
            halley_curl_response_take_body(response, &length).map {
                Data(bytesNoCopy: $0, count: length, deallocator: .free)
            } ?? Data()
        return .success(
            CurlReply(
                status: responseCode > 0 ? responseCode : response.pointee.status, headers: headers,
                body: body, metrics: metrics))
    }

    /// The limit a callback stopped the transfer at, if one did (it returned 0 so that
    /// libcurl stopped at once).
    private func callbackFailure() -> (any Error)? {
        switch Int(response.pointee.failure) {
        case HALLEY_RESPONSE_HEADER_BYTES:
            return ResponseHeadersTooLargeError(url: job.url, limit: .bytes(job.maxHeaderBytes))
        case HALLEY_RESPONSE_HEADER_COUNT:
            return ResponseHeadersTooLargeError(url: job.url, limit: .count(job.maxHeaderCount))
        case HALLEY_RESPONSE_BODY_TOO_LARGE:
            return ResponseBodyTooLargeError(url: job.url, limit: job.maxBodyBytes ?? 0)
        case HALLEY_RESPONSE_OUT_OF_MEMORY:
            return error(for: CurlABI.Code.outOfMemory, ourBuffer: true)
        default:
            return nil
        }
    }

    /// Reads the exchange's metrics when the job asked for them; called when the transfer is
    /// done, before its handle leaves the multi handle (the connection is the handle's until
    /// then). `tlsVersions` remembers the TLS version of each connection by its addresses:
    /// libcurl reports it only when it makes the connection.
    func noteMetrics(tlsVersions: inout [String: String]) {
        guard job.collectsMetrics else { return }
        var metrics = TransferMetrics()
        var number = 0
        if halley_curl_easy_getinfo_long(easy, CurlABI.Info.httpVersion, &number) == CurlABI.Code.ok {
            switch number {
            case CurlABI.Value.httpVersionReply10: metrics.httpVersion = "HTTP/1.0"
            case CurlABI.Value.httpVersionReply11: metrics.httpVersion = "HTTP/1.1"
            case CurlABI.Value.httpVersionReply2: metrics.httpVersion = "HTTP/2"
            case CurlABI.Value.httpVersionReply3: metrics.httpVersion = "HTTP/3"
            default: break
            }
        }
        var address: UnsafeMutableRawPointer?
        if halley_curl_easy_getinfo_pointer(easy, CurlABI.Info.primaryIP, &address) == CurlABI.Code.ok,
            let address, address.load(as: CChar.self) != 0
        {
            metrics.remoteAddress = String(cString: address.assumingMemoryBound(to: CChar.self))
        }
        if halley_curl_easy_getinfo_long(easy, CurlABI.Info.primaryPort, &number) == CurlABI.Code.ok, number > 0 {
            metrics.remotePort = number
        }
        if halley_curl_easy_getinfo_long(easy, CurlABI.Info.connectionsMade, &number) == CurlABI.Code.ok {
            metrics.reusedConnection = number == 0
        }
        func time(_ info: Int32) -> Duration? {
            var microseconds: Int64 = 0
            guard halley_curl_easy_getinfo_offset(easy, info, &microseconds) == CurlABI.Code.ok else { return nil }
            return .microseconds(microseconds)
        }
        metrics.nameLookup = time(CurlABI.Info.nameLookupTime)
        metrics.connect = time(CurlABI.Info.connectTime)
        metrics.tlsHandshake = time(CurlABI.Info.appConnectTime)
        metrics.firstByte = time(CurlABI.Info.startTransferTime)
        metrics.total = time(CurlABI.Info.totalTime)
        // Through an HTTP proxy a plain-HTTP URL travels in clear; an https one is tunnelled.
        if job.isHTTPS {
            // A TCP connection is its two ends; a later connection from the same local port
            // reports its own version when it is made.
            var localPort = 0
            _ = halley_curl_easy_getinfo_long(easy, CurlABI.Info.localPort, &localPort)
            let key = localPort > 0 ? "\(metrics.remoteAddress ?? ""):\(metrics.remotePort ?? 0)-\(localPort)" : nil
            let reported = handle.tlsVersion[0] == 0 ? nil : String(cString: handle.tlsVersion)
            if let reported, let key { tlsVersions[key] = reported }
            metrics.tlsVersion = reported ?? key.flatMap { tlsVersions[$0] } ?? "TLS"
        }
        self.metrics = metrics
    }

    /// A libcurl failure as a ``TransportError`` whose code the other requesters give for the
    /// same failure, keeping the `URLError` URLSession would give (with the CURLcode in its
    /// `userInfo`) as the underlying error.
    private func error(for code: Int32, ourBuffer: Bool = false) -> any Error {
        let detail = String(cString: handle.errorBuffer)
        if code == CurlABI.Code.outOfMemory && !ourBuffer && response.pointee.headers_complete == 0 {
            // libcurl's own cap on one header line (100 KiB) is the only allocation it
            // refuses while reading headers.
            return ResponseHeadersTooLargeError(url: job.url, limit: .bytes(min(job.maxHeaderBytes, 102_400)))
        }
        let urlCode: URLError.Code
        switch code {
        case CurlABI.Code.operationTimedOut: urlCode = .timedOut
        case CurlABI.Code.couldNotResolveHost: urlCode = .cannotFindHost
        case CurlABI.Code.couldNotConnect, CurlABI.Code.couldNotResolveProxy: urlCode = .cannotConnectToHost
        case CurlABI.Code.unsupportedProtocol: urlCode = .unsupportedURL
        case CurlABI.Code.urlMalformed: urlCode = .badURL
        case CurlABI.Code.weirdServerReply: urlCode = .badServerResponse
        case CurlABI.Code.badContentEncoding: urlCode = .cannotDecodeContentData
        case CurlABI.Code.peerFailedVerification: urlCode = .serverCertificateUntrusted
        case CurlABI.Code.sslConnectError: urlCode = .secureConnectionFailed
        case CurlABI.Code.partialFile, CurlABI.Code.receiveError, CurlABI.Code.sendError, CurlABI.Code.gotNothing,
            CurlABI.Code.http2, CurlABI.Code.http2Stream:
            urlCode = .networkConnectionLost
        default: urlCode = .unknown
        }
        let message = Self.message(for: code) + (detail.isEmpty ? "" : ": " + detail)
        let urlError = URLError(
            urlCode,
            userInfo: [
                NSLocalizedDescriptionKey: message, NSURLErrorFailingURLErrorKey: job.url, "CURLcode": Int(code),
            ])
        guard var transportCode = TransportError.code(of: urlError) else { return urlError }
        if code == CurlABI.Code.couldNotConnect {
            // libcurl 7.88 says "Couldn't connect to server" for a refusal and an unreachable
            // host alike; the socket's errno tells them apart.
            var number = 0
            _ = halley_curl_easy_getinfo_long(easy, CurlABI.Info.osErrno, &number)
            transportCode = TransportError.code(ofErrno: Int32(truncatingIfNeeded: number)) ?? .connectionRefused
        }
        // Where libcurl's words only repeat the code, they are left to the underlying error.
        let repeats = [.hostNotFound, .connectionRefused, .timedOut].contains(transportCode)
        return TransportError(code: transportCode, url: job.url, detail: repeats ? "" : detail, underlying: urlError)
    }

    /// `curl_easy_strerror`, with the number.
    static func message(for code: Int32) -> String {
        let text = halley_curl_easy_strerror(code).map { String(cString: $0) } ?? "error"
        return "\(text) (CURLcode \(code))"
    }
}

/// An easy handle with what every request shares already set, and the buffer libcurl writes
/// its error messages to. Made, lent and kept by the engine's loop thread only.
final class CurlHandle {
    let easy: OpaquePointer
    /// `CURLOPT_ERRORBUFFER`, owned here: it must outlive every transfer on the handle.
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// Where the debug callback writes the TLS version of a connection the handle made
    /// (`CURLOPT_DEBUGDATA`), owned here like the error buffer.
    let tlsVersion: UnsafeMutablePointer<CChar>
    private static let tlsVersionSize = 16
    /// What the header and body callbacks read of the current transfer's response, owned
    /// here like the error buffer (libcurl holds the pointer as `CURLOPT_HEADERDATA` and
    /// `CURLOPT_WRITEDATA`), its header buffer kept from one transfer to the next.
    let response: UnsafeMutablePointer<halley_curl_response>

    /// The values the last transfer set for the options each transfer sets (`nil`: not set,
    /// or not known after a failed call): ``CurlTransfer/prepare()`` sets only those that
    /// differ. Each costs a call through libcurl's option parser, the lists an allocation per
    /// line.
    struct Applied {
        struct Proxy: Equatable {
            let url: String
            let user: String?
            let password: String?
            let headerLines: [String]

            /// No proxy: what a job without one sets.
            var isDirect: Bool { url.isEmpty && user == nil && password == nil && headerLines.isEmpty }
        }
        var freshConnection: Bool?
        var pipeWait: Bool?
        /// The method is GET without a body: no custom method, `CURLOPT_HTTPGET` set.
        var plainGet = false
        /// The fields whose lines ``headerList`` holds, after its `Expect:` when it has one.
        var headerFields: [HeaderFields.Field]?
        /// ``headerList`` starts with `Expect:` (the request has a body).
        var suppressesExpect = false
        var proxy: Proxy?
    }
    var applied = Applied()
    /// The strings of the last response's header lines, for the next response's same lines.
    var recentHeaderLines = CurlHeaderFields.Recent()
    /// `CURLOPT_HTTPHEADER` and `CURLOPT_PROXYHEADER`: libcurl reads them until the transfer
    /// ends, so the handle keeps them until the next transfer replaces them.
    private var headerList: OpaquePointer?
    private var proxyHeaderList: OpaquePointer?

    /// Takes `list` as the handle's header list, freeing the last one: the handle is out of
    /// the multi handle between transfers, so libcurl reads neither until the next starts.
    func replaceHeaderList(_ list: OpaquePointer?) {
        if let headerList { halley_curl_slist_free_all(headerList) }
        headerList = list
    }

    /// The same for `CURLOPT_PROXYHEADER`.
    func replaceProxyHeaderList(_ list: OpaquePointer?) {
        if let proxyHeaderList { halley_curl_slist_free_all(proxyHeaderList) }
        proxyHeaderList = list
    }

    /// Makes a handle and sets the options every request of the requester shares.
    ///
    /// - Throws: ``CurlUnavailableError`` when libcurl refuses the handle or an option,
    ///   ``UnsupportedSettingsError`` when it is too old for a TLS setting.
    init(setup: CurlHandleSetup) throws {
        guard let easy = halley_curl_easy_init() else { throw CurlUnavailableError(reason: "curl_easy_init failed") }
        self.easy = easy
        errorBuffer = .allocate(capacity: CurlABI.Value.errorBufferSize)
        errorBuffer.initialize(repeating: 0, count: CurlABI.Value.errorBufferSize)
        tlsVersion = .allocate(capacity: Self.tlsVersionSize)
        tlsVersion.initialize(repeating: 0, count: Self.tlsVersionSize)
        response = .allocate(capacity: 1)
        response.initialize(to: halley_curl_response())
        do {
            try configure(setup)
        } catch {
            halley_curl_easy_cleanup(easy)
            errorBuffer.deallocate()
            tlsVersion.deallocate()
            response.deallocate()
            throw error
        }
    }

    deinit {
        halley_curl_easy_cleanup(easy)
        errorBuffer.deallocate()
        tlsVersion.deallocate()
        halley_curl_response_free(response)
        response.deallocate()
        if let headerList { halley_curl_slist_free_all(headerList) }
        if let proxyHeaderList { halley_curl_slist_free_all(proxyHeaderList) }
    }

    private func configure(_ setup: CurlHandleSetup) throws {
        try Self.check(halley_curl_easy_set_response(easy, response))
        try Self.check(
            halley_curl_easy_setopt_pointer(easy, CurlABI.Option.errorBuffer, UnsafeMutableRawPointer(errorBuffer)))
        // Installed before verbose mode can be on, so libcurl never writes its trace to stderr.
        try Self.check(halley_curl_easy_set_tls_version_buffer(easy, tlsVersion))
        // Threads and signals: libcurl must not use SIGALRM for timeouts in a threaded process.
        try set(CurlABI.Option.noSignal, 1)
        // Redirects are followed by CurlRequester, so its origin rules apply to every hop.
        try set(CurlABI.Option.followLocation, 0)
        // A response must start with a status line: what follows a lying Content-Length on a
        // reused connection is an error (see CurlStaleConnectionError), not an HTTP/0.9 body.
        try set(CurlABI.Option.http09Allowed, 0)
        // HTTP and HTTPS only, whatever the URL says.
        if halley_curl_easy_setopt_pointer(easy, CurlABI.Option.protocolsString, "http,https") != CurlABI.Code.ok {
            try set(CurlABI.Option.protocols, CurlABI.Value.protocolHTTP | CurlABI.Value.protocolHTTPS)
        }
        // Every encoding libcurl can decode (gzip, deflate, br, zstd as built); the body
        // callbacks see decoded bytes, so the body limit counts what the server's bytes
        // inflate to.
        try Self.check(halley_curl_easy_setopt_pointer(easy, CurlABI.Option.acceptEncoding, ""))
        try set(CurlABI.Option.httpVersion, setup.httpVersion)
        try set(CurlABI.Option.tcpNoDelay, 1)
        try set(CurlABI.Option.tcpKeepAlive, 1)
        try set(CurlABI.Option.suppressConnectHeaders, 1)
        // The requester decides which hosts skip the proxy; an empty list keeps libcurl from
        // applying the environment's `no_proxy` on top of that decision.
        try Self.check(halley_curl_easy_setopt_pointer(easy, CurlABI.Option.noProxy, ""))
        // Request headers (Authorization among them) go to the origin only, inside a CONNECT
        // tunnel; the proxy gets CURLOPT_PROXYHEADER's (libcurl's default since 7.42.1).
        try set(CurlABI.Option.headerOption, CurlABI.Value.headerSeparate)
        // Proxy credentials are sent at once rather than after a 407 round trip.
        try set(CurlABI.Option.proxyAuth, CurlABI.Value.authBasic)
        try setup.tls.apply(to: easy)
    }

    private func set(_ option: Int32, _ value: Int) throws {
        try Self.check(halley_curl_easy_setopt_long(easy, option, value))
    }

    static func check(_ code: Int32) throws {
        guard code == CurlABI.Code.ok else {
            throw CurlUnavailableError(reason: "libcurl refused an option: \(CurlTransfer.message(for: code))")
        }
    }
}
