import Foundation
import HalleyTestSupport
import HalleyTesting
import Testing

@testable import Halley

/// A URL that several branches of one traversal need is requested once; these cases pin what
/// the other branches see when that request fails or is cancelled. Each was found by the
/// reliability suites (issue #19) and fails on the code before its fix.
@Suite struct SharedRequestFailureTests {
    let base = Graph.base

    @Test func partialModeReportsASharedFailureAtEachPlaceWithItsOwnIncludePath() async throws {
        let api = StubAPI()
        api.resource("/a", StubResource().links("items", ["/x", "/ok"]).link("other", "/x"))
        api.resource("/ok", StubResource(["ok": true]))
        api.resource("/x", StubResource())
        api.fault(
            "/x",
            .status(
                500, headers: ["Content-Type": "application/problem+json"],
                body: Data(#"{"title": "Broken", "status": 500}"#.utf8)))
        for path in ["/a", "/ok", "/x"] { api.latency(path, .milliseconds(5)) }
        let result = try await ResourceManager(requester: api.requester)
            .traverse(Graph.url("/a"), includes: ["[items]", "other"])
        #expect(result.failures.map { $0.includePath ?? "" }.sorted() == ["[items]", "other"])
        #expect(result.failures.map { $0.url } == [Graph.url("/x"), Graph.url("/x")])
        #expect(result.failures.allSatisfy { $0.httpError?.status == 500 })
        #expect(result.document["items"]?.arrayValue?.count == 1)
        #expect(result.document["other"] == nil)
        #expect(api.requests(to: "/x").count == 1)
    }

    /// `left.[items]` holds `/bad` and `/s`; `right.shared` needs `/s` too. `/bad` fails
    /// first, which cancels the left branch's request for `/s`: the right branch, which waits
    /// for that request, is not cancelled by it, so the call fails with `/bad`'s error, never
    /// with a cancellation.
    @Test func aFailFastCallThrowsTheFailureNotTheCancellationOfARequestAnotherBranchAwaits() async throws {
        for round in 1...20 {
            let (gate, call) = try await startBranches()
            await gate.release { $0.hasSuffix("/left") }
            // The left branch owns /s; the right one arrives after it and waits for it.
            _ = try await gate.waitForParked(3)
            await gate.release { $0.hasSuffix("/right") }
            try await Task.sleep(for: .milliseconds(5))
            await gate.release { $0.hasSuffix("/bad") }
            let outcome = await call.result
            await gate.release()
            #expect(throws: HalleyError.self, "round \(round)") { try outcome.get() }
            if case .failure(let error as HalleyError) = outcome {
                #expect(error.url == Graph.url("/bad") && error.includePath == "left.[items]", "round \(round)")
            }
        }
    }

    /// The same graph, but the right branch owns `/s` and the left one waits for it: when
    /// `/bad` fails, the waiting left item is cancelled with its siblings and the call ends at
    /// once, although `/s` never answers.
    @Test func aCancelledBranchStopsWaitingForARequestAnotherBranchSent() async throws {
        let (gate, call) = try await startBranches()
        await gate.release { $0.hasSuffix("/right") }
        _ = try await gate.waitForParked(2)  // /left and /s, sent by the right branch
        await gate.release { $0.hasSuffix("/left") }
        _ = try await gate.waitForParked(2)  // /s and /bad; the left item for /s waits
        await gate.release { $0.hasSuffix("/bad") }
        let ended = await Self.ends(call, within: .seconds(10))
        if !ended {
            Issue.record("the call waited for /s after /bad failed")
            await gate.release()
        }
        let outcome = await call.result
        #expect(throws: HalleyError.self) { try outcome.get() }
        #expect(await gate.arrivals.filter { $0.hasSuffix("/s") }.count == 1)
    }

    /// Starts the call over the two branches' graph and lets `/a` through: it returns once
    /// `/left` and `/right` are both held, for the test to pick which answers first.
    private func startBranches() async throws -> (GatedRequester, Task<JSONValue, any Error>) {
        let gate = GatedRequester()
        await register(in: gate)
        let call = Task {
            try await ResourceManager(requester: gate)
                .resource(from: Graph.url("/a"), includes: ["left.[items]", "right.shared"])
        }
        _ = try await gate.waitForParked(1)
        await gate.release()  // /a
        _ = try await gate.waitForParked(2)
        return (gate, call)
    }

    private func register(in gate: GatedRequester) async {
        await gate.register(
            base + "/a",
            json: Graph.resource("/a", links: ["left": Graph.link("/left"), "right": Graph.link("/right")]))
        await gate.register(
            base + "/left", json: Graph.resource("/left", links: ["items": [Graph.link("/bad"), Graph.link("/s")]]))
        await gate.register(base + "/right", json: Graph.resource("/right", links: ["shared": Graph.link("/s")]))
        await gate.register(base + "/s", json: ["shared": true])
        // /bad is not registered: the gate answers it with a 404.
    }

    /// Whether `task` finishes within `limit`.
    private static func ends<Value: Sendable>(_ task: Task<Value, any Error>, within limit: Duration) async -> Bool {
        let clock = ContinuousClock()
        let end = clock.now + limit
        let finished = LockedValue(false)
        Task {
            _ = await task.result
            finished.set(true)
        }
        while !finished.get() {
            if clock.now >= end { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}
