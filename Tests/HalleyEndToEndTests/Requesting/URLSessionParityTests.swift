import Foundation
import Halley
import HalleyTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `URLSessionRequester` behaves as the other requesters do, on every platform: it reports
/// how a response travelled, its own session keeps no URL cache, and a `401` comes back as
/// the response whatever the challenge handling. Against HalleyTesting's loopback server.
@Suite struct URLSessionParityTests {
    private func serving(_ path: String, headers: HeaderFields = [:], status: Int = 200) throws -> (StubAPI, StubServer)
    {
        let api = StubAPI()
        api.respond(to: .get, path, with: .json(["ok": true], status: status, headers: headers))
        return (api, try api.serve())
    }

    @Test func metricsAreReportedWhenAskedFor() async throws {
        let (_, server) = try serving("/measured")
        var request = ResourceRequest(url: server.url("/measured"), timeout: .seconds(30))
        request.collectsMetrics = true

        let response = try await URLSessionRequester().response(for: request)

        let metrics = try #require(response.metrics)
        let total = try #require(metrics.total)
        #expect(total > .zero)
        #expect(metrics.tlsVersion == nil)  // plain HTTP
        #if canImport(FoundationNetworking)
            // FoundationNetworking (Swift 6.3) never calls `didFinishCollecting`: the total,
            // by the requester's clock, is all there is.
            #expect(metrics.httpVersion == nil)
        #else
            #expect(metrics.httpVersion == "HTTP/1.1")
            #expect(metrics.remoteAddress == "127.0.0.1")
            #expect(metrics.remotePort == server.port)
            #expect(metrics.reusedConnection == false)
            #expect(total >= (metrics.firstByte ?? .zero))
        #endif
    }

    @Test func noMetricsUnlessAskedFor() async throws {
        let (_, server) = try serving("/unmeasured")
        let response = try await URLSessionRequester().response(
            for: ResourceRequest(url: server.url("/unmeasured"), timeout: .seconds(30)))
        #expect(response.metrics == nil)
    }

    @Test func metricsThroughACallersSessionToo() async throws {
        let (_, server) = try serving("/measured-own")
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        var request = ResourceRequest(url: server.url("/measured-own"), timeout: .seconds(30))
        request.collectsMetrics = true

        let response = try await URLSessionRequester(session: session).response(for: request)

        #expect(response.metrics?.total != nil)
        #if !canImport(FoundationNetworking)
            #expect(response.metrics?.httpVersion == "HTTP/1.1")
        #endif
    }

    @Test func theRequestersOwnSessionKeepsNoURLCache() async throws {
        let (api, server) = try serving("/cacheable", headers: ["Cache-Control": "public, max-age=600"])
        // `.default` comes with the shared URLCache: the requester removes it, so Halley's
        // ResponseCache and store see every request.
        let requester = URLSessionRequester(configuration: .default)
        for _ in 0..<2 {
            let response = try await requester.response(
                for: ResourceRequest(url: server.url("/cacheable"), timeout: .seconds(30)))
            #expect(response.status == 200)
        }
        #expect(api.requests(to: "/cacheable").count == 2)
    }

    @Test(arguments: [URLSessionRequester.ChallengeHandling.returnResponse, .systemDefault])
    func a401ComesBackAsTheResponse(handling: URLSessionRequester.ChallengeHandling) async throws {
        let (api, server) = try serving(
            "/protected", headers: ["WWW-Authenticate": #"Basic realm="halley""#], status: 401)
        let requester = URLSessionRequester(challenges: handling)

        let response = try await requester.response(
            for: ResourceRequest(url: server.url("/protected"), timeout: .seconds(30)))

        #expect(response.status == 401)
        #expect(response.headers["WWW-Authenticate"] == #"Basic realm="halley""#)
        #expect(api.requests(to: "/protected").count == 1)
    }
}
