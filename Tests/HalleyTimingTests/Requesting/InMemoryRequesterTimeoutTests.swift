import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// The in-memory requester's own time limit: it ends an attempt at the request's `timeout`.
@Suite struct InMemoryRequesterTimeoutTests {
    @Test func theInMemoryRequesterEndsASlowRouteAtTheRequestsTimeout() async throws {
        let requester = InMemoryRequester()
        await requester.register("https://api.example.com/slow", json: ["x": 1], latency: .seconds(120))
        let request = ResourceRequest(url: URL(string: "https://api.example.com/slow")!, timeout: .milliseconds(50))
        let clock = ContinuousClock()
        let start = clock.now
        await #expect { try await requester.response(for: request) } throws: {
            ($0 as? TransportError)?.code == .timedOut
        }
        #expect(clock.now - start < .seconds(60), "well before the 120 s answer")
        #expect(requester.enforcesRequestTimeout)
    }

    @Test func theInMemoryRequesterHoldsAHandlerToWhatIsLeftOfTheTimeout() async throws {
        let requester = InMemoryRequester(latency: .milliseconds(10))
        let cancelled = LockedValue(false)
        await requester.register("https://api.example.com/hang") { _ in
            do {
                try await Task.sleep(for: .seconds(120))
            } catch {
                cancelled.set(true)
                throw error
            }
            return ResourceResponse(url: URL(string: "https://api.example.com/hang")!, body: Data())
        }
        await requester.register("https://api.example.com/quick") { request in
            ResourceResponse(url: request.url, body: Data("{}".utf8))
        }
        let hang = ResourceRequest(url: URL(string: "https://api.example.com/hang")!, timeout: .milliseconds(100))
        await #expect { try await requester.response(for: hang) } throws: {
            ($0 as? TransportError)?.code == .timedOut
        }
        #expect(cancelled.get(), "the handler was cancelled, not left running")
        let quick = ResourceRequest(url: URL(string: "https://api.example.com/quick")!, timeout: .seconds(30))
        #expect(try await requester.response(for: quick).status == 200)
    }
}
