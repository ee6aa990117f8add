import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Servers that lie about lengths, never stop, inflate, flood headers or hang up, at full
/// loopback speed (`HalleyTestSupport/hostile_http_server.py` never paces its output), against every
/// HTTP requester. Each case ends with a typed error or the right response, in bounded time;
/// where memory is the point, the request runs in `halley-transport-probe`, a process of its
/// own, and the kernel's peak RSS for that process is the measure.
///
/// Time bounds are generous (5 s where the goal is 1 s) so a loaded machine cannot fail
/// them; the figures are printed for the record. The cases run one at a time: run together,
/// their floods starve the timing-sensitive suites that run beside them on two cores.
@Suite(.serialized) struct HostileTransportTests {
    /// The most a hostile body may raise a probe's resident size above its baseline.
    static let memoryBudget = 32 * 1024 * 1024
    /// The bound on each case's time (the goal is 1 s).
    static let timeBound: Duration = .seconds(5)

    private func request(_ url: URL) -> ResourceRequest {
        var request = ResourceRequest(url: url, timeout: .seconds(30))
        request.maxBodyBytes = 16 * 1024 * 1024
        return request
    }

    /// What fetching `url` through `transport` threw, held to the time bound; a response is a
    /// test failure (`accepted` names what was let through) and gives `nil`. `label` names the
    /// case in the printed figures.
    private func failure(
        _ transport: Transport, _ url: URL, label: String, accepted: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (any Error)? {
        let (result, elapsed) = try await outcome(transport, url)
        print("HostileTransportTests: \(transport) \(label): \(result) in \(elapsed)")
        #expect(elapsed < Self.timeBound, sourceLocation: sourceLocation)
        guard case .failure(let error) = result else {
            Issue.record("\(accepted) was accepted: \(result)", sourceLocation: sourceLocation)
            return nil
        }
        return error
    }

    /// The requester's answer and how long it took.
    private func outcome(_ transport: Transport, _ url: URL) async throws
        -> (Result<ResourceResponse, any Error>, Duration)
    {
        let requester = try transport.make()
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await requester.response(for: request(url))
            return (.success(response), clock.now - start)
        } catch {
            return (.failure(error), clock.now - start)
        }
    }

    // MARK: Memory: one process per request

    @Test(arguments: Transport.allCases, ["/huge-declared", "/endless-chunked", "/gzip-bomb"])
    func endlessOrInflatingBodiesStopAtTheLimitWithinBoundedMemory(transport: Transport, path: String) async throws {
        let server = try await TestServer.hostileHTTP()
        // FoundationNetworking cannot bound these (see Transport.hasFoundationNetworkingGaps):
        // its run is cut short at 64 MiB so it costs the suite little, and the gap is a
        // known issue rather than a failure.
        let knownGap = transport.hasFoundationNetworkingGaps
        if Sanitizer.isActive {
            // Shadow memory and quarantine make a sanitized probe's memory meaningless, and one
            // costs a second of CPU to start, which starves the timing tests beside this suite.
            // The sanitizers still see the same code paths: the request runs here, in process
            // (FoundationNetworking's flood, a known gap, is not run at all).
            guard !knownGap else {
                print("HostileTransportTests: \(transport) \(path): not run under a sanitizer (a known gap)")
                return
            }
            let (result, elapsed) = try await outcome(transport, server.url(path))
            #expect(throws: ResponseBodyTooLargeError.self) { try result.get() }
            #expect(elapsed < Self.timeBound)
            return
        }
        let result = try await ProbeRunner.run([
            transport.probeName, server.url(path).absoluteString, "--warmup", server.url("/small").absoluteString,
            "--max-body", "\(16 * 1024 * 1024)", "--rss-cap", "\(knownGap ? 64 << 20 : 1 << 30)",
        ])
        print("HostileTransportTests: \(transport) \(path): \(result)")
        withKnownIssue("FoundationNetworking queues bodies for its delegate without bound", isIntermittent: true) {
            #expect(result.exitStatus == 0, "\(result)")
            #expect(result.outcome == "error", "\(result)")
            #expect(result.errorType == "ResponseBodyTooLargeError", "\(result)")
            #expect(result.elapsed < Self.timeBound, "\(result)")
            // A probe built with a sanitizer (run by hand) has its memory inflated up to 6
            // times by shadow memory and quarantine: the bound is for the plain build.
            #expect(result.growth <= Self.memoryBudget * (result.sanitized ? 8 : 1), "\(result)")
        } when: {
            knownGap
        }
    }

    // MARK: In process

    @Test(arguments: Transport.allCases)
    func basicChallengeIsAnsweredAsA401AtOnce(transport: Transport) async throws {
        let server = try await TestServer.hostileHTTP()
        let (result, elapsed) = try await outcome(transport, server.url("/basic-401"))
        print("HostileTransportTests: \(transport) /basic-401: \(result) in \(elapsed)")
        let response = try result.get()
        #expect(response.status == 401)
        #expect(response.headers["WWW-Authenticate"] == #"Basic realm="halley""#)
        #expect(elapsed < Self.timeBound)
    }

    /// A body shorter than its `Content-Length`, and a chunked body whose connection closes
    /// mid-chunk: both cut short, so both the same transport error.
    @Test(
        arguments: Transport.allCases,
        [
            (path: "/content-length?declared=100000&actual=5000", label: "Content-Length too large"),
            (path: "/close-mid-chunk", label: "closed mid-chunk"),
        ])
    func aBodyCutShortIsATransportError(transport: Transport, cut: (path: String, label: String)) async throws {
        let server = try await TestServer.hostileHTTP()
        guard
            let error = try await failure(
                transport, server.url(cut.path), label: cut.label, accepted: "a body cut short (\(cut.label))")
        else { return }
        #expect((error as? TransportError)?.code == .connectionReset, "\(type(of: error)): \(error)")
    }

    @Test(arguments: Transport.allCases)
    func contentLengthSmallerThanTheBodyCutsTheBodyAndSparesTheNextResponse(transport: Transport) async throws {
        let server = try await TestServer.hostileHTTP()
        let requester = try transport.make()
        let response = try await requester.response(for: request(server.url("/content-length?declared=50&actual=5000")))
        #expect(response.status == 200)
        #expect(response.body.count == 50)
        // The extra bytes must not be read as the next response on a reused connection.
        try await withKnownIssue(
            "FoundationNetworking reuses a connection holding a body's excess", isIntermittent: true
        ) {
            for _ in 0..<3 {
                let next = try await requester.response(for: request(server.url("/small")))
                #expect(next.status == 200)
                #expect(try JSONValue(parsing: next.body)["small"] == true)
            }
        } when: {
            transport.hasFoundationNetworkingGaps
        }
    }

    /// 30,000 header fields, and one header line of 1 MiB: both past the header limit.
    @Test(
        arguments: Transport.allCases,
        [
            (path: "/many-headers?n=30000", label: "30,000 header fields"),
            (path: "/long-header?bytes=1048576", label: "a 1 MiB header line"),
        ])
    func aHeaderFloodIsATypedError(transport: Transport, flood: (path: String, label: String)) async throws {
        let server = try await TestServer.hostileHTTP()
        // FoundationNetworking rebuilds its list of header lines for each line it reads, until
        // libcurl's own 300 KiB cap stops it: with 30,000 one-letter fields that is 2-4 s of
        // one core (quadratic; see the "Choosing a requester" guide), which starves the suites running beside this
        // one. Its fields get longer values so libcurl's cap comes after a few thousand
        // lines: still 30,000 fields sent, still a typed error, without the quadratic bill.
        // (Only `/many-headers` reads `pad`.)
        let pad = transport.hasFoundationNetworkingGaps ? 96 : 0
        guard
            let error = try await failure(
                transport, server.url(flood.path + "&pad=\(pad)"), label: flood.label, accepted: flood.label)
        else { return }
        #expect(error is ResponseHeadersTooLargeError, "\(type(of: error)): \(error)")
    }

    /// Through the engine, the body limit is `.limitExceeded` whatever the requester. (A
    /// finite 2 MB body: an endless one would flood this process through FoundationNetworking.)
    @Test(arguments: Transport.allCases)
    func theEngineReportsTheBodyLimitAsLimitExceeded(transport: Transport) async throws {
        let server = try await TestServer.hostileHTTP()
        var options = CallOptions()
        options.maxBodyBytes = 1024 * 1024
        let url = server.url("/content-length?declared=2000000&actual=2000000")
        await #expect {
            _ = try await ResourceManager(requester: try transport.make()).resource(from: url, options: options)
        } throws: { error in
            (error as? HalleyError)?.code == .limitExceeded
                && (error as? HalleyError)?.underlying is ResponseBodyTooLargeError
        }
    }

    /// libcurl inflates a gzip bomb through the engine too; the limit counts inflated bytes.
    @Test func theEngineStopsAGzipBombThroughCurl() async throws {
        let server = try await TestServer.hostileHTTP()
        var options = CallOptions()
        options.maxBodyBytes = 1024 * 1024
        let clock = ContinuousClock()
        let start = clock.now
        await #expect {
            _ = try await ResourceManager(requester: try CurlRequester()).resource(
                from: server.url("/gzip-bomb"), options: options)
        } throws: { error in
            (error as? HalleyError)?.code == .limitExceeded
                && (error as? HalleyError)?.underlying is ResponseBodyTooLargeError
        }
        #expect(clock.now - start < Self.timeBound)
    }
}
