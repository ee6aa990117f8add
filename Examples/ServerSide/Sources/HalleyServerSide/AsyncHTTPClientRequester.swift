import AsyncHTTPClient
import Foundation
import Halley
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Sends Halley's requests through AsyncHTTPClient, for servers that already run on SwiftNIO.
///
/// The requester owns its `HTTPClient`, made from the configuration you pass, with one change:
/// AsyncHTTPClient's own redirect handling is turned off and redirects are followed here, so
/// Halley's credential rules apply to every hop (see below). Share one requester (and so one
/// connection pool) across the process; it shuts its client down when the last copy goes
/// away, or when you call ``shutdown()``.
///
/// - **Body limit.** The body is streamed and counted as it arrives; past
///   `ResourceRequest.maxBodyBytes` reading stops, the connection is closed and the request
///   throws `ResponseBodyTooLargeError`, which Halley reports as `.limitExceeded`. A declared
///   `Content-Length` over the limit is refused before the body. With `decompression` on,
///   the inflated bytes are the ones counted.
/// - **Redirects.** Halley's own rules (`RedirectChain`, as `CurlRequester` follows them):
///   301, 302, 303, 307 and 308 are followed up to `maxRedirects` times (then
///   `TransportError` with the code `.tooManyRedirects`): 303, and 301/302 after a POST, become a GET without a body; 307 and
///   308 keep the method and body. A hop to an origin outside `ResourceRequest.trustedOrigins`
///   (the request URL's origin when empty) drops `Authorization`, `Cookie`,
///   `Proxy-Authorization`, the requester's `credentialHeaders` and the request's own.
///   Redirects to other schemes are refused. The response's URL is the final one, so relative
///   links resolve against it.
/// - **Timeouts.** `ResourceRequest.timeout` bounds the whole request, redirects and body
///   included; past it the request throws `TransportError` with the code `.timedOut`.
/// - **Errors.** Transport failures are Halley's `TransportError`, with the codes
///   `CurlRequester` and `URLSessionRequester` give for the same failures.
/// - **Cancellation.** Cancelling the calling task cancels the HTTP request (or stops reading
///   its body and closes the connection) and throws `CancellationError`.
///
/// ```swift
/// let requester = AsyncHTTPClientRequester()
/// let manager = ResourceManager(requester: requester)
/// let shop = try await manager.resource(from: URL(string: "https://api.example.com/shop")!, includes: ["[orders]"])
/// try await requester.shutdown()
/// ```
public struct AsyncHTTPClientRequester: RequesterInterface, Sendable {
    private let owner: ClientOwner
    private let credentialHeaders: Set<String>
    private let maxRedirects: Int
    private let maxHeaderCount: Int
    private let maxDecompressedBytes: Int?

    /// Redirects followed in a row before `TransportError` `.tooManyRedirects`: 20, as
    /// Halley's own requesters.
    public static let defaultMaxRedirects = 20

    /// The size of a header section SwiftNIO's HTTP/1 parser accepts: 80 KiB. A larger one
    /// fails as `ResponseHeadersTooLargeError`.
    public static let parserHeaderLimit = 80 * 1024

    /// Creates a requester with its own `HTTPClient`.
    ///
    /// ```swift
    /// var configuration = HTTPClient.Configuration()
    /// configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 16
    /// let requester = AsyncHTTPClientRequester(configuration: configuration, decompression: .enabled(maxBytes: 32 << 20))
    /// ```
    ///
    /// - Parameters:
    ///   - eventLoopGroup: Where the client runs; AsyncHTTPClient's shared group by default.
    ///   - configuration: The client's configuration. Its `redirectConfiguration` is replaced
    ///     by `.disallow` (redirects are followed by the requester) and its `decompression`
    ///     by the `decompression` parameter.
    ///   - credentialHeaders: Header names removed when a redirect leaves the trusted origins,
    ///     in addition to `Authorization`, `Cookie`, `Proxy-Authorization` and each request's
    ///     own.
    ///   - maxRedirects: Redirects followed in a row (20 by default).
    ///   - maxHeaderCount: The most response header fields accepted (1,000 by default).
    ///   - decompression: Whether gzip and deflate bodies are asked for and inflated.
    public init(
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration = HTTPClient.Configuration(),
        credentialHeaders: Set<String> = [],
        maxRedirects: Int = AsyncHTTPClientRequester.defaultMaxRedirects,
        maxHeaderCount: Int = ResponseHeadersTooLargeError.defaultMaxCount,
        decompression: Decompression = .disabled
    ) {
        var configuration = configuration
        configuration.redirectConfiguration = .disallow
        switch decompression.setting {
        case .disabled:
            configuration.decompression = .disabled
            maxDecompressedBytes = nil
        case .enabled(let maxBytes):
            // The client's own cap bounds what one compressed read may inflate to before it
            // reaches the counting below; the request's limit is applied on top.
            configuration.decompression = .enabled(limit: .size(maxBytes))
            maxDecompressedBytes = maxBytes
        }
        owner = ClientOwner(client: HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration))
        // RedirectChain adds the request's names and Halley's defaults to these.
        self.credentialHeaders = credentialHeaders
        self.maxRedirects = max(0, maxRedirects)
        self.maxHeaderCount = maxHeaderCount
    }

    /// Creates a requester whose client uses Halley's TLS configuration, mapped onto NIOSSL by
    /// ``Halley/TLSConfiguration/nioSSLConfiguration()``: the trust roots, client identity
    /// and minimum version that ``CurlRequester`` would use.
    ///
    /// AsyncHTTPClient tries a failed connection again until the request's deadline, a refused
    /// certificate included, and then throws the last error. Set
    /// `configuration.connectionPool.retryConnectionEstablishment` to `false` for the
    /// ``TLSError`` at once (Halley's ``RetryPolicy`` still retries what is worth retrying).
    ///
    /// ```swift
    /// let tls = Halley.TLSConfiguration(trustRoots: .systemAnd([.file("/etc/myapp/private-ca.pem")]))
    /// let requester = try AsyncHTTPClientRequester(tls: tls)
    /// ```
    ///
    /// - Parameters:
    ///   - tls: Replaces `configuration.tlsConfiguration`.
    ///   - eventLoopGroup: Where the client runs; AsyncHTTPClient's shared group by default.
    ///   - configuration: The client's configuration, as for the other initializer.
    ///   - credentialHeaders: Header names removed when a redirect leaves the trusted origins.
    ///   - maxRedirects: Redirects followed in a row (20 by default).
    ///   - maxHeaderCount: The most response header fields accepted (1,000 by default).
    ///   - decompression: Whether gzip and deflate bodies are asked for and inflated.
    /// - Throws: `TLSConfigurationError` naming a file that cannot be used,
    ///   `UnsupportedSettingsError` for settings NIOSSL has no equivalent of (pinned keys,
    ///   trusting any certificate).
    public init(
        tls: Halley.TLSConfiguration,
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration = HTTPClient.Configuration(),
        credentialHeaders: Set<String> = [],
        maxRedirects: Int = AsyncHTTPClientRequester.defaultMaxRedirects,
        maxHeaderCount: Int = ResponseHeadersTooLargeError.defaultMaxCount,
        decompression: Decompression = .disabled
    ) throws {
        var configuration = configuration
        configuration.tlsConfiguration = try tls.nioSSLConfiguration()
        self.init(
            eventLoopGroup: eventLoopGroup, configuration: configuration, credentialHeaders: credentialHeaders,
            maxRedirects: maxRedirects, maxHeaderCount: maxHeaderCount, decompression: decompression)
    }

    /// Shuts the client down once its requests have finished; later requests fail.
    ///
    /// ```swift
    /// try await requester.shutdown()
    /// ```
    public func shutdown() async throws {
        try await owner.shutdown()
    }

    /// Sends the request, following redirects, and reads the whole body.
    ///
    /// ```swift
    /// var request = ResourceRequest(url: URL(string: "https://api.example.com/shop")!, timeout: .seconds(5))
    /// request.maxBodyBytes = 1_000_000
    /// let response = try await AsyncHTTPClientRequester().response(for: request)
    /// print(response.status, response.url, response.body.count)
    /// ```
    ///
    /// - Throws: Halley's `TransportError` for transport failures, with the code its own
    ///   requesters give for the same failure (`.timedOut` past `ResourceRequest/timeout`,
    ///   `.hostNotFound`, `.connectionRefused`, `.connectionReset`, the TLS codes,
    ///   `.tooManyRedirects`, ...) and AsyncHTTPClient's or SwiftNIO's error underneath;
    ///   `ResponseBodyTooLargeError`, `ResponseHeadersTooLargeError`, `CancellationError`;
    ///   AsyncHTTPClient's or SwiftNIO's own errors for failures Halley has no code for.
    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        do {
            return try await timedExchange(request)
        } catch let error as RedirectError {
            // Halley's own requesters report a refused redirect in the shared vocabulary.
            throw TransportError(classifying: error, url: request.url) ?? error
        }
    }

    /// The exchange within `ResourceRequest.timeout`.
    private func timedExchange(_ request: ResourceRequest) async throws -> ResourceResponse {
        guard let timeout = request.timeout else {
            return try await exchange(request, deadline: .distantFuture)
        }
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        return try await withTimeout(timeout, url: request.url) {
            try await exchange(request, deadline: deadline)
        }
    }

    /// The request and its redirects, one hop at a time.
    private func exchange(_ request: ResourceRequest, deadline: NIODeadline) async throws -> ResourceResponse {
        // Halley's redirect rules, as its own requesters follow them.
        var chain = RedirectChain(request, credentialHeaders: credentialHeaders, maxRedirects: maxRedirects)
        while true {
            try Task.checkCancellation()
            let hop = chain.current
            let response: HTTPClientResponse
            do {
                response = try await owner.client.execute(outgoing(hop), deadline: deadline)
            } catch {
                throw ClientErrorTranslation.translate(error, url: hop.url, maxDecompressedBytes: maxDecompressedBytes)
            }
            let headers = try headerFields(of: response, url: hop.url)
            let status = Int(response.status.code)
            // A redirect's body is not read: dropping it closes the connection, and it says nothing.
            guard try chain.follow(status: status, location: headers["Location"]) else {
                let body: Data
                do {
                    body = try await BodyReader.read(
                        response.body, of: hop.method == .head ? .head : .response(headers),
                        limit: request.maxBodyBytes,
                        url: hop.url)
                } catch {
                    throw ClientErrorTranslation.translate(
                        error, url: hop.url, maxDecompressedBytes: maxDecompressedBytes)
                }
                return ResourceResponse(status: status, headers: headers, url: hop.url, body: body)
            }
        }
    }

    /// AsyncHTTPClient's request for one hop.
    private func outgoing(_ hop: RedirectChain.Hop) -> HTTPClientRequest {
        var outgoing = HTTPClientRequest(url: hop.url.absoluteString)
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: hop.method.rawValue)
        for field in hop.headers { outgoing.headers.add(name: field.name, value: field.value) }
        if maxDecompressedBytes != nil, !outgoing.headers.contains(name: "Accept-Encoding") {
            outgoing.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        }
        if let body = hop.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        return outgoing
    }

    /// The response's fields as Halley's headers, repeated names joined with commas
    /// (RFC 9110, 5.3), after the count limit.
    private func headerFields(of response: HTTPClientResponse, url: URL) throws -> HeaderFields {
        guard response.headers.count <= maxHeaderCount else {
            throw ResponseHeadersTooLargeError(url: url, limit: .count(maxHeaderCount))
        }
        var order: [String] = []
        var values: [String: (name: String, values: [String])] = [:]
        for (name, value) in response.headers {
            let key = name.lowercased()
            if values[key] == nil { order.append(key) }
            values[key, default: (name, [])].values.append(value)
        }
        return HeaderFields(
            order.compactMap { key in values[key].map { ($0.name, $0.values.joined(separator: ", ")) } })
    }

    /// Runs `body`, or throws Halley's `TransportError` with the code `.timedOut` once `limit`
    /// passes (cancelling it).
    private func withTimeout<Value: Sendable>(
        _ limit: Duration, url: URL, _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            guard let value = first else {
                throw TransportError(code: .timedOut, url: url, limit: limit)
            }
            return value
        }
    }
}

extension AsyncHTTPClientRequester {
    /// Whether response bodies are asked for compressed and inflated.
    public struct Decompression: Sendable, Hashable {
        enum Setting: Sendable, Hashable {
            case disabled
            case enabled(maxBytes: Int)
        }

        let setting: Setting

        /// Bodies are read as sent; no `Accept-Encoding` is added. The default.
        public static let disabled = Decompression(setting: .disabled)

        /// `Accept-Encoding: gzip, deflate` is sent (unless the request has its own) and
        /// bodies are inflated; a body inflating past `maxBytes` fails as
        /// `ResponseBodyTooLargeError` even when the request's own limit is higher.
        public static func enabled(maxBytes: Int) -> Decompression {
            Decompression(setting: .enabled(maxBytes: max(1, maxBytes)))
        }
    }
}

extension AsyncHTTPClientRequester: CustomStringConvertible {
    /// `AsyncHTTPClientRequester`.
    public var description: String { "AsyncHTTPClientRequester" }
}

/// Owns a requester's client: when the last copy of the requester goes away, the client is
/// shut down (no request can be in flight then: each holds the requester).
private final class ClientOwner: Sendable {
    let client: HTTPClient
    private let isShutDown = NIOLockedValueBox(false)

    init(client: HTTPClient) {
        self.client = client
    }

    func shutdown() async throws {
        guard
            isShutDown.withLockedValue({ state in
                defer { state = true }
                return !state
            })
        else { return }
        try await client.shutdown()
    }

    deinit {
        if isShutDown.withLockedValue({ $0 }) == false {
            // Not awaited: the client keeps itself alive until its shutdown completes.
            client.shutdown { _ in }
        }
    }
}

extension TimeAmount {
    /// `duration` in nanoseconds, saturating.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let nanoseconds = overflow ? Int64.max : whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
        self = .nanoseconds(max(0, nanoseconds))
    }
}
