import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// ``ResourceResponse/metrics`` and the request records that carry them (issue #28).
@Suite struct TransferMetricsTests {
    @Test func curlMeasuresWhenAskedAndOnlyThen() async throws {
        let server = try await TestServer.hostileHTTP()
        let requester = try CurlRequester(proxy: .direct)
        var request = ResourceRequest(url: server.url("/small"))
        #expect(try await requester.response(for: request).metrics == nil, "nothing is measured unasked")

        request.collectsMetrics = true
        let metrics = try #require(try await requester.response(for: request).metrics)
        #expect(metrics.httpVersion == "HTTP/1.1")
        #expect(metrics.tlsVersion == nil, "plain HTTP")
        #expect(metrics.remoteAddress == "127.0.0.1")
        #expect(metrics.remotePort == server.port)
        let total = try #require(metrics.total)
        let firstByte = try #require(metrics.firstByte)
        #expect(total > .zero && firstByte <= total)
        #expect(metrics.description.hasPrefix("127.0.0.1:\(server.port), "), "\(metrics)")
        #expect(metrics.description.contains("HTTP/1.1; name lookup "), "\(metrics)")
    }

    @Test func requestRecordsCarryTheHeadersAndMetrics() async throws {
        let server = try await TestServer.hostileHTTP()
        let records = LockedValue<[RequestRecord]>([])
        var options = CallOptions()
        options.configureRequest = { request in request.collectsMetrics = true }
        options.observer = { event in
            if case .requestFinished(let record) = event { records.withLock { $0.append(record) } }
        }
        let manager = ResourceManager(requester: try CurlRequester(proxy: .direct))
        _ = try await manager.resource(from: server.url("/small"), options: options)
        let record = try #require(records.get().first)
        #expect(record.headers?["Content-Type"] == "application/hal+json")
        #expect(record.metrics?.httpVersion == "HTTP/1.1")
        #expect(record.metrics?.reusedConnection != nil)
    }
}
