import AsyncHTTPClient
import Foundation
import Halley
import HalleyServerSide
import Testing

/// ``AsyncHTTPClientRequester`` held to the rules of Halley's own requesters: redirects and
/// credentials, limits while reading, timeouts, cancellation. Against the loopback HAL server
/// and the hostile server.
///
/// Bounds on time are wide (the tests may run on a loaded machine); the slow answers they
/// guard against take 20 s or never end.
@Suite struct AsyncHTTPClientRequesterTests {
    let secret = "s-" + UUID().uuidString

    /// The headers `/echo-headers` or `/echo` reported.
    func echoedHeaders(_ response: ResourceResponse) throws -> JSONObject {
        try #require(try JSONValue(parsing: response.body)["headers"]?.objectValue, "\(response)")
    }

    // MARK: Redirects and credentials

    @Test func aRedirectToAnotherOriginDropsTheCredentials() async throws {
        let server = try await LoopbackServer.hal()
        let other = try await LoopbackServer.otherOrigin()
        let requester = AsyncHTTPClientRequester(credentialHeaders: ["X-Api-Key"])
        let target = other.url("/echo-headers")
        var request = ResourceRequest(
            url: server.url("/redirect?to=" + LoopbackServer.queryValue(target.absoluteString)),
            headers: ["Authorization": "Bearer \(secret)", "X-Api-Key": secret, "X-Tenant": secret])
        request.credentialHeaders = ["x-tenant"]
        let response = try await requester.response(for: request)
        #expect(response.status == 200)
        #expect(response.url == target, "the final URL, for relative links")
        let headers = try echoedHeaders(response)
        #expect(headers["authorization"] == nil)
        #expect(headers["x-api-key"] == nil, "the requester's own credential header")
        #expect(headers["x-tenant"] == nil, "the request's credential header")
        try await requester.shutdown()
    }

    @Test func aRedirectWithinTheOriginOrToATrustedOneKeepsThem() async throws {
        let server = try await LoopbackServer.hal()
        let other = try await LoopbackServer.otherOrigin()
        let requester = AsyncHTTPClientRequester()
        let sameOrigin = ResourceRequest(
            url: server.url("/redirect?to=/echo-headers"), headers: ["Authorization": "Bearer \(secret)"])
        let same = try await requester.response(for: sameOrigin)
        #expect(same.url == server.url("/echo-headers"))
        #expect(try echoedHeaders(same)["authorization"]?.stringValue == "Bearer \(secret)")

        let target = other.url("/echo-headers").absoluteString
        var trusted = ResourceRequest(
            url: server.url("/redirect?to=" + LoopbackServer.queryValue(target)),
            headers: ["Authorization": "Bearer \(secret)"])
        trusted.trustedOrigins = [Origin(server.baseURL), Origin(other.baseURL)]
        #expect(try echoedHeaders(try await requester.response(for: trusted))["authorization"] != nil)
        try await requester.shutdown()
    }

    @Test func throughTheEngineCredentialsNeverReachAnotherOrigin() async throws {
        let server = try await LoopbackServer.hal()
        let other = try await LoopbackServer.otherOrigin()
        let requester = AsyncHTTPClientRequester()
        let manager = ResourceManager(requester: requester)
        var options = CallOptions()
        options.headers = ["Authorization": "Bearer \(secret)"]
        let target = other.url("/echo-headers").absoluteString
        let document = try await manager.resource(
            from: server.url("/redirect?to=" + LoopbackServer.queryValue(target)), options: options)
        #expect(document["headers"]?["authorization"] == nil)
        #expect(
            document["headers"]?["host"]?.stringValue == other.baseURL.host.map { "\($0):\(other.baseURL.port ?? 0)" })
        try await requester.shutdown()
    }

    /// The same fields go with the body as from Halley's own requesters (`RedirectChain`).
    @Test(arguments: [
        (307, "POST", true), (308, "POST", true), (303, "GET", false), (302, "GET", false), (301, "GET", false),
    ])
    func aRedirectKeepsOrDropsTheMethodAndBody(status: Int, method: String, keepsBody: Bool) async throws {
        let hostile = try await LoopbackServer.hostile()
        let requester = AsyncHTTPClientRequester()
        let request = ResourceRequest(
            url: hostile.url("/redirect?status=\(status)&to=/echo"), method: .post,
            headers: [
                "Content-Type": "application/json", "Content-Encoding": "identity", "Content-Language": "en",
                "Content-Location": "/drafts/1", "X-Kept": "yes",
            ],
            body: Data(#"{"n": 1}"#.utf8))
        let response = try await requester.response(for: request)
        let echoed = try JSONValue(parsing: response.body)
        #expect(echoed["method"]?.stringValue == method)
        #expect(echoed["body"]?.stringValue == (keepsBody ? #"{"n": 1}"# : ""))
        for name in ["content-type", "content-encoding", "content-language", "content-location"] {
            #expect((echoed["headers"]?[name] != nil) == keepsBody, "\(name) after a \(status)")
        }
        #expect(echoed["headers"]?["x-kept"] == "yes")
        try await requester.shutdown()
    }

    @Test func redirectsAreCountedAndOtherSchemesRefused() async throws {
        let server = try await LoopbackServer.hal()
        let requester = AsyncHTTPClientRequester(maxRedirects: 3)
        await #expect {
            _ = try await requester.response(for: ResourceRequest(url: server.url("/loop")))
        } throws: { error in
            (error as? TransportError)?.redirectError?.reason == .tooManyRedirects(limit: 3)
        }
        await #expect {
            _ = try await requester.response(for: ResourceRequest(url: server.url("/redirect?to=file:///etc/passwd")))
        } throws: { error in
            (error as? TransportError)?.redirectError?.reason == .unsupportedScheme("file")
        }
        try await requester.shutdown()
    }

    // MARK: Limits

    @Test func aDeclaredLengthOverTheLimitIsRefusedBeforeTheBody() async throws {
        let server = try await LoopbackServer.hal()
        let requester = AsyncHTTPClientRequester()
        var request = ResourceRequest(url: server.url("/huge?mb=64"))
        request.maxBodyBytes = 1_000_000
        await #expect(throws: ResponseBodyTooLargeError(url: request.url, limit: 1_000_000)) {
            _ = try await requester.response(for: request)
        }
        try await requester.shutdown()
    }

    @Test func anEndlessBodyStopsAtTheLimit() async throws {
        let server = try await LoopbackServer.hal()
        let requester = AsyncHTTPClientRequester()
        // The paced endless body (64 KiB per ms), and a timeout: were the limit not applied,
        // the test would fail on the timeout with a bounded amount read, not run on.
        var request = ResourceRequest(url: server.url("/endless"), timeout: .seconds(10))
        request.maxBodyBytes = 2_000_000
        let clock = ContinuousClock()
        let start = clock.now
        await #expect(throws: ResponseBodyTooLargeError(url: request.url, limit: 2_000_000)) {
            _ = try await requester.response(for: request)
        }
        #expect(clock.now - start < .seconds(10))
        try await requester.shutdown()
    }

    @Test func theEngineReportsTheBodyLimitAsLimitExceeded() async throws {
        let server = try await LoopbackServer.hal()
        let requester = AsyncHTTPClientRequester()
        let manager = ResourceManager(requester: requester)
        var options = CallOptions()
        options.maxBodyBytes = 100_000
        options.requestTimeout = .seconds(10)
        await #expect {
            _ = try await manager.resource(from: server.url("/endless"), options: options)
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .limitExceeded && (error.underlying as? ResponseBodyTooLargeError)?.limit == 100_000
        }
        try await requester.shutdown()
    }

    @Test func inflatedBytesAreTheOnesCounted() async throws {
        let hostile = try await LoopbackServer.hostile()
        let requester = AsyncHTTPClientRequester(decompression: .enabled(maxBytes: 8_000_000))
        let small = try await requester.response(for: ResourceRequest(url: hostile.url("/gzip-small")))
        #expect(try HALResource(parsing: small.body, url: small.url).json["inflated"]?.stringValue?.count == 10_000)

        // A few hundred bytes on the wire, 10 kB inflated.
        var limited = ResourceRequest(url: hostile.url("/gzip-small"))
        limited.maxBodyBytes = 5_000
        await #expect(throws: ResponseBodyTooLargeError(url: limited.url, limit: 5_000)) {
            _ = try await requester.response(for: limited)
        }

        // About 1 MiB on the wire, 1 GiB inflated: the requester's own cap stops it, whatever
        // the request's limit.
        var bomb = ResourceRequest(url: hostile.url("/gzip-bomb"), timeout: .seconds(10))
        bomb.maxBodyBytes = nil
        await #expect(throws: ResponseBodyTooLargeError(url: bomb.url, limit: 8_000_000)) {
            _ = try await requester.response(for: bomb)
        }
        try await requester.shutdown()
    }

    @Test func headerSectionsPastTheLimitsAreRefused() async throws {
        let hostile = try await LoopbackServer.hostile()
        let requester = AsyncHTTPClientRequester(maxHeaderCount: 100)
        let long = hostile.url("/long-header?bytes=100000")
        await #expect(throws: ResponseHeadersTooLargeError(url: long, limit: .bytes(80 * 1024))) {
            _ = try await requester.response(for: ResourceRequest(url: long))
        }
        let many = hostile.url("/many-headers?n=150&pad=1")
        await #expect(throws: ResponseHeadersTooLargeError(url: many, limit: .count(100))) {
            _ = try await requester.response(for: ResourceRequest(url: many))
        }
        try await requester.shutdown()
    }

    // MARK: Time and cancellation

    /// The codes Halley's own requesters give for the same failures (issue #28).
    @Test func transportFailuresHaveHalleysCodes() async throws {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        let requester = AsyncHTTPClientRequester(configuration: configuration)
        let cases: [(String, TransportError.Code, String)] = [
            (
                "http://nosuch.invalid/", .hostNotFound,
                "the host name nosuch.invalid could not be resolved; check the URL's host name and the network's DNS"
            ),
            (
                "http://127.0.0.1:1/", .connectionRefused,
                "127.0.0.1:1 refused the connection; check that the server is running and listens on that port"
            ),
        ]
        for (text, code, sentence) in cases {
            let url = try #require(URL(string: text))
            await #expect {
                _ = try await requester.response(for: ResourceRequest(url: url, timeout: .seconds(10)))
            } throws: { error in
                guard let error = error as? TransportError else { return false }
                return error.code == code && error.description == sentence && error.underlying != nil
            }
        }
        try await requester.shutdown()
    }

    @Test func theRequestTimeoutBoundsTheWholeRequest() async throws {
        let server = try await LoopbackServer.hal()
        let requester = AsyncHTTPClientRequester()
        let slow = ResourceRequest(url: server.url("/slow?ms=20000"), timeout: .milliseconds(300))
        await #expect {
            _ = try await requester.response(for: slow)
        } throws: { error in
            (error as? TransportError)?.code == .timedOut
        }
        // An endless body with no size limit: only the timeout ends it.
        var endless = ResourceRequest(url: server.url("/endless"), timeout: .milliseconds(500))
        endless.maxBodyBytes = nil
        await #expect {
            _ = try await requester.response(for: endless)
        } throws: { error in
            (error as? TransportError)?.code == .timedOut
        }

        var options = CallOptions()
        options.requestTimeout = .milliseconds(300)
        await #expect {
            _ = try await ResourceManager(requester: requester).resource(from: slow.url, options: options)
        } throws: { error in
            (error as? HalleyError)?.code == .timeout
        }
        try await requester.shutdown()
    }

    @Test func cancellingTheTaskCancelsARequestWaitingForItsAnswer() async throws {
        let server = try await LoopbackServer.hal()
        let requester = AsyncHTTPClientRequester()
        let manager = ResourceManager(requester: requester)
        let log = LogCapture()
        let options = log.options()
        let call = Task { try await manager.resource(from: server.url("/hang"), options: options) }
        try await waitUntil { !log.entries(for: "requestStarted").isEmpty }
        try await Task.sleep(for: .milliseconds(200))
        let clock = ContinuousClock()
        let cancelled = clock.now
        call.cancel()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        #expect(clock.now - cancelled < .seconds(5))
        try await requester.shutdown()
    }

    @Test func cancellingTheTaskStopsReadingABody() async throws {
        let server = try await LoopbackServer.hal()
        let requester = AsyncHTTPClientRequester()
        var request = ResourceRequest(url: server.url("/endless"))
        request.maxBodyBytes = nil
        let call = Task { try await requester.response(for: request) }
        try await Task.sleep(for: .milliseconds(500))
        let clock = ContinuousClock()
        let cancelled = clock.now
        call.cancel()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        #expect(clock.now - cancelled < .seconds(5))
        try await requester.shutdown()
    }

    /// Polls `condition` every 10 ms for at most 10 s.
    func waitUntil(_ condition: () -> Bool) async throws {
        let clock = ContinuousClock()
        let end = clock.now + .seconds(10)
        while !condition() {
            guard clock.now < end else {
                Issue.record("condition not met within 10 s")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
