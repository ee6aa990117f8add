// swift-format-ignore-file
// ServerSideSwift.md's blocks that need AsyncHTTPClient, swift-log or the tracing, verbatim between
// `// snippet` and `// end snippet` (the root's SnippetSyncTests holds them to the article).
// Everything else is scaffolding that runs them against the loopback server.
import Foundation
import Halley
import HalleyServerSide
import Logging
import Testing

@Suite struct ArticleSnippets {
    @Test func theServerSideArticlesExampleRuns() async throws {
        let shopURL = try await LoopbackServer.hal().url("/shop")
        // snippet ServerSideSwift.md "AsyncHTTPClient"
        let requester = AsyncHTTPClientRequester()
        let shop = ResourceManager(requester: requester)

        func orders(requestID: String) async throws -> JSONValue {
            var logger = Logger(label: "shop-service.upstream")
            logger[metadataKey: "request.id"] = "\(requestID)"
            var options = CallOptions()
            options.observer = TraversalEventLogger(logger: logger).observer
            return try await shop.resource(from: shopURL, includes: ["[orders].customer"], options: options)
        }

        // end snippet
        let result = try await orders(requestID: "r-1")
        #expect(result["orders"]?[0]?["customer"]?["name"]?.stringValue == "Ada Lovelace")
        // snippet ServerSideSwift.md "AsyncHTTPClient"
        // When the service stops:
        try await requester.shutdown()
        // end snippet
    }

    @Test func theArticlesTracingExampleRuns() async throws {
        let shopURL = try await LoopbackServer.hal().url("/shop")
        // snippet ServerSideSwift.md "HalleyTelemetry"
        let telemetry = HalleyTelemetry()
        let traced = ResourceManager(requester: telemetry.requester(wrapping: AsyncHTTPClientRequester()))

        func tracedOrders() async throws -> JSONValue {
            try await telemetry.withCallSpan("load orders") { options in
                try await traced.resource(from: shopURL, includes: ["[orders].customer"], options: options)
            }
        }
        // end snippet
        let result = try await tracedOrders()
        #expect(result["orders"]?[0]?["customer"]?["name"]?.stringValue == "Ada Lovelace")
        let wrapped = try #require(traced.requester as? TracingRequester<AsyncHTTPClientRequester>)
        try await wrapped.base.shutdown()
    }
}
