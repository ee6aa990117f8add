import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `RequestPolicyTests`' time budget, against the in-memory requester: the per-attempt limit
/// (`requestTimeout`) and the whole call's `deadline`.
@Suite struct RequestPolicyTimeLimitTests {
    let base = Graph.base

    @Test(arguments: [true, false])
    func thePerRequestTimeoutBoundsAnyRequester(requesterEnforcesIt: Bool) async throws {
        let inMemory = InMemoryRequester()
        // An answer far later than any loaded machine delays a 100 ms timer.
        await inMemory.register(base + "/slow", json: ["x": 1], latency: .seconds(120))
        // The in-memory requester ends its own attempts; one that ignores the limit is held to it
        // by the engine's watchdog.
        let requester: any ResourceRequester & Sendable =
            requesterEnforcesIt ? inMemory : LimitIgnoringRequester(base: inMemory)
        #expect(requester.enforcesRequestTimeout == requesterEnforcesIt)
        var options = CallOptions()
        options.requestTimeout = .milliseconds(100)
        let clock = ContinuousClock()
        let start = clock.now
        await #expect {
            try await ResourceManager(requester: requester).resource(from: Graph.url("/slow"), options: options)
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .timeout && error.url == Graph.url("/slow")
                && error.message.contains("within 100 ms, the time allowed for each attempt")
        }
        #expect(clock.now - start < .seconds(60), "well before the 120 s answer")
    }

    /// A requester that says it enforces the limit is trusted: the engine races nothing
    /// against it, so an answer it lets through late still counts.
    @Test func aRequesterThatEnforcesTheLimitIsTrustedWithIt() async throws {
        struct Lenient: RequesterInterface, Sendable {
            var enforcesRequestTimeout: Bool { true }
            func response(for request: ResourceRequest) async throws -> ResourceResponse {
                try await Task.sleep(for: .milliseconds(300))
                return ResourceResponse(url: request.url, body: Data(#"{"late": true}"#.utf8))
            }
        }
        var options = CallOptions()
        options.requestTimeout = .milliseconds(50)
        let resource = try await ResourceManager(requester: Lenient()).resource(
            from: Graph.url("/late"), options: options)
        #expect(resource["late"]?.boolValue == true)
    }

    @Test func theCallDeadlineCancelsPendingRequestsAndNamesThem() async throws {
        let gate = GatedRequester()
        await gate.register(
            base + "/a", json: Graph.resource("/a", links: ["items": [Graph.link("/fast"), Graph.link("/slow")]]))
        await gate.register(base + "/fast", json: ["n": 1])
        var options = CallOptions()
        // Long enough for both requests to park on a loaded machine under a sanitizer.
        options.deadline = .seconds(10)
        let clock = ContinuousClock()
        let start = clock.now
        let call = Task {
            try await ResourceManager(requester: gate).resource(
                from: Graph.url("/a"), includes: ["[items]"], options: options)
        }
        _ = try await gate.waitForParked(1)
        await gate.release()
        _ = try await gate.waitForParked(2)
        await gate.release { $0.hasSuffix("/fast") }  // /slow never answers
        await #expect {
            try await call.value
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .timeout && error.message.contains(Graph.base + "/slow")
                && !error.message.contains("/fast")
        }
        #expect(clock.now - start < .seconds(30))
        #expect(await gate.waiting.isEmpty, "the pending request was cancelled")
    }
}
