import Foundation
import Halley
import InMemoryTracing
import MetricsTestKit
import NIOConcurrencyHelpers
import Testing
import Tracing

@testable import HalleyServerSide

/// A real traversal over loopback HTTP, traced into `InMemoryTracer` and measured into
/// `TestMetrics`: the span tree, the propagated context and the metrics.
@Suite struct HalleyTelemetryTests {
    /// Remembers the headers of every request that reached the base requester.
    struct Recording<Base: RequesterInterface & Sendable>: RequesterInterface, Sendable {
        let base: Base
        let sent = NIOLockedValueBox<[ResourceRequest]>([])
        func response(for request: ResourceRequest) async throws -> ResourceResponse {
            sent.withLockedValue { $0.append(request) }
            return try await base.response(for: request)
        }
    }

    @Test func aTraversalIsASpanTreeWithMetrics() async throws {
        let server = try await LoopbackServer.hal()
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        let telemetry = HalleyTelemetry(tracer: tracer, metricsFactory: metrics)
        let http = AsyncHTTPClientRequester()
        let recording = Recording(base: http)
        var configuration = ResourceManager.Configuration()
        configuration.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1))
        configuration.cache = ResponseCache()
        let manager = ResourceManager(requester: telemetry.requester(wrapping: recording), configuration: configuration)

        // A fresh counter for /flaky: its first request answers 503 in every run.
        let stockID = UUID().uuidString
        var options = CallOptions()
        options.variables = ["stock": .string(stockID)]
        let result = try await telemetry.withCallSpan("load traced shop", options: options) { options in
            try await manager.traverse(
                server.url("/traced"), includes: ["[orders].customer", "stock", "supplier", "terms", "address"],
                options: options)
        }
        #expect(result.document["orders"]?[0]?["customer"]?["name"]?.stringValue == "Ada Lovelace")
        #expect(result.failures.map(\.includePath) == ["supplier"])
        // The second call finds /cacheable fresh in the cache: no request, no attempt span.
        _ = try await telemetry.withCallSpan("read terms") { options in
            try await manager.resource(from: server.url("/cacheable"), options: options)
        }
        try await http.shutdown()

        let spans = tracer.finishedSpans
        let call = try #require(spans.first { $0.operationName == "load traced shop" })
        #expect(call.parentSpanID == nil)
        #expect(call.kind == .internal)
        let children = spans.filter { $0.parentSpanID == call.spanID }
        #expect(children.count == 8, "\(children.map { $0.attributes["url.full"]?.toSpanAttribute() })")
        #expect(children.allSatisfy { $0.traceID == call.traceID && $0.kind == .client && $0.operationName == "GET" })
        func attemptSpans(to path: String) -> [FinishedInMemorySpan] {
            children.filter { $0.attributes["url.full"]?.toSpanAttribute() == .string(server.url(path).absoluteString) }
        }
        func int(_ span: FinishedInMemorySpan?, _ key: String) -> Int64? {
            guard case .int64(let value) = span?.attributes[key]?.toSpanAttribute() else { return nil }
            return value
        }
        func string(_ span: FinishedInMemorySpan?, _ key: String) -> String? {
            guard case .string(let value) = span?.attributes[key]?.toSpanAttribute() else { return nil }
            return value
        }

        // The root, then its children, which overlap in time: they were in flight together.
        let root = try #require(attemptSpans(to: "/traced").first)
        #expect(string(root, "halley.include_path") == "(root)")
        #expect(int(root, "http.response.status_code") == 200)
        #expect(string(root, "http.request.method") == "GET")
        #expect(string(root, "server.address") == "127.0.0.1")
        let orders = attemptSpans(to: "/shop/orders/1") + attemptSpans(to: "/shop/orders/2")
        #expect(orders.count == 2)
        #expect(orders.allSatisfy { string($0, "halley.include_path") == "[orders]" })
        #expect(orders.allSatisfy { $0.startInstant.nanosecondsSinceEpoch >= root.endInstant.nanosecondsSinceEpoch })
        let firstEnd = orders.map(\.endInstant.nanosecondsSinceEpoch).min() ?? 0
        let lastStart = orders.map(\.startInstant.nanosecondsSinceEpoch).max() ?? 0
        #expect(lastStart < firstEnd, "the two orders were fetched in parallel")

        // The retried attempt: 503, then 200 with a resend count of 1.
        let stock = attemptSpans(to: "/flaky?id=\(stockID)&failures=1")
            .sorted { $0.startInstant.nanosecondsSinceEpoch < $1.startInstant.nanosecondsSinceEpoch }
        #expect(stock.count == 2)
        #expect(stock.map { int($0, "http.response.status_code") } == [503, 200])
        #expect(stock.map { int($0, "http.request.resend_count") } == [nil, 1])
        #expect(string(stock.first, "error.type") == "503")
        #expect(stock.first?.status?.code == .error)
        #expect(stock.last?.status == nil)

        // The failed relationship: its attempt failed, the call went on without it.
        let supplier = try #require(attemptSpans(to: "/status/404").first)
        #expect(string(supplier, "error.type") == "404")
        #expect(string(supplier, "halley.include_path") == "supplier")
        #expect(supplier.status?.code == .error)

        // The call span: counts and the events that are no request of their own.
        #expect(int(call, "halley.requests") == 8)
        #expect(int(call, "halley.retries") == 1)
        #expect(int(call, "halley.embedded_resources") == 1)
        #expect(int(call, "halley.cache_hits") == 0)
        #expect(call.status == nil)
        let events = call.events.map(\.name)
        #expect(events.contains("halley.retrying"))
        #expect(events.contains("halley.embeddedUsed"))
        #expect(events.contains("halley.relationMissing"))
        let reading = try #require(spans.first { $0.operationName == "read terms" })
        #expect(int(reading, "halley.cache_hits") == 1)
        #expect(int(reading, "halley.requests") == 0)
        #expect(reading.events.map(\.name) == ["halley.cacheHit"])
        #expect(!spans.contains { $0.parentSpanID == reading.spanID })

        // Each request carried its own attempt span's context.
        let sent = recording.sent.withLockedValue { $0 }
        #expect(sent.count == 8)
        for request in sent {
            let spanID = request.headers[InMemoryTracer.spanIDKey]
            let span = children.first { $0.spanID == spanID }
            #expect(span != nil, "\(request.url) carried \(spanID ?? "no span id")")
            #expect(request.headers[InMemoryTracer.traceIDKey] == call.traceID)
            #expect(int(span, "http.request.resend_count") == (request.attempt > 1 ? 1 : nil))
        }

        // Metrics: durations and requests by status class, retries, cache hits, bytes, sizes.
        let ok = [("http.request.method", "GET"), ("http.response.status_class", "2xx")]
        #expect(metrics.counterTotal(label: "halley.requests", dimensions: ok) == 6)
        for failed in ["4xx", "5xx"] {
            let dimensions = [ok[0], ("http.response.status_class", failed)]
            #expect(try metrics.expectCounter("halley.requests", dimensions).totalValue == 1)
        }
        #expect(try metrics.expectTimer("http.client.request.duration", ok).values.count == 6)
        #expect(try metrics.expectCounter("halley.retries").totalValue == 1)
        #expect(try metrics.expectCounter("halley.cache.hits", [("halley.cache.result", "fresh")]).totalValue == 1)
        #expect(try metrics.expectCounter("halley.response.body.size").totalValue > 500)
        #expect(try metrics.expectRecorder("halley.call.requests").values == [8, 0])
        #expect(try metrics.expectRecorder("halley.call.embedded_resources").values == [1, 0])
    }

    @Test func aFailedCallIsAFailedSpan() async throws {
        let server = try await LoopbackServer.hal()
        let tracer = InMemoryTracer()
        let telemetry = HalleyTelemetry(tracer: tracer, metricsFactory: TestMetrics())
        let http = AsyncHTTPClientRequester()
        let manager = ResourceManager(requester: telemetry.requester(wrapping: http))
        await #expect(throws: HalleyError.self) {
            try await telemetry.withCallSpan("missing") { options in
                try await manager.resource(from: server.url("/status/404"), options: options)
            }
        }
        try await http.shutdown()
        let call = try #require(tracer.finishedSpans.first { $0.operationName == "missing" })
        #expect(call.status?.code == .error)
        #expect(call.attributes["error.type"]?.toSpanAttribute() == .string("404"))
        #expect(call.errors.count == 1)
    }

    @Test func theTraceContextFollowsTheCredentialRule() async throws {
        let tracer = InMemoryTracer()
        let base = InMemoryRequester()
        let url = URL(string: "https://other.example/a")!
        await base.register(url.absoluteString, json: ["ok": true])
        let requester = Recording(base: base)
        let traced = HalleyTelemetry(tracer: tracer, metricsFactory: TestMetrics()).requester(wrapping: requester)

        // By default a trace header goes everywhere.
        _ = try await traced.response(for: ResourceRequest(url: url))
        // Named a credential, it goes only to trusted origins.
        var scoped = ResourceRequest(url: url)
        scoped.credentialHeaders = [InMemoryTracer.spanIDKey, InMemoryTracer.traceIDKey]
        scoped.trustedOrigins = [Origin(URL(string: "https://api.example")!)]
        _ = try await traced.response(for: scoped)
        scoped.trustedOrigins.insert(Origin(url))
        _ = try await traced.response(for: scoped)

        let sent = requester.sent.withLockedValue { $0 }
        #expect(sent.map { $0.headers[InMemoryTracer.spanIDKey] != nil } == [true, false, true])
    }

    @Test func urlFullCarriesNoCredentials() {
        #expect(fullURL(URL(string: "https://user:secret@api.example/a?b=1")!) == "https://api.example/a?b=1")
        #expect(fullURL(URL(string: "https://api.example/a")!) == "https://api.example/a")
    }
}
