import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Dedup, cycles, concurrency limit, critical path, cancellation, failures, limits.
@Suite struct TraversalConcurrencyTests {
    let base = Graph.base

    @Test func cyclicContactGraphTerminatesAndRequestsEachResourceOnce() async throws {
        let requester = await Graph.contacts(latency: .milliseconds(5))
        let manager = ResourceManager(requester: requester)
        let result = try await manager.resource(
            from: Graph.url("/contacts/1"), includes: ["[contacts].[contacts].[contacts]", "[contacts].website"])
        #expect(result["contacts"]?[0]?["contacts"]?[0]?["contacts"]?[0]?["id"] == "2")  // 1→2→1→2
        #expect(result["contacts"]?[1]?["website"]?["id"] == "w3")
        for id in 1...3 { #expect(await requester.count(for: base + "/contacts/\(id)") == 1) }
        #expect(await requester.requestCount == 5)  // three contacts, websites 2 and 3
    }

    @Test func concurrentBranchesShareOneInFlightRequest() async throws {
        let requester = InMemoryRequester(latency: .milliseconds(30))
        let links = (0..<100).map { Graph.link("/shared/\($0 % 10)") }
        await requester.serve("/a", links: ["items": .array(links)])
        for index in 0..<10 { await requester.register(base + "/shared/\(index)", json: ["n": .int(index)]) }
        var options = CallOptions()
        options.maxConcurrency = 64
        let result = try await ResourceManager(requester: requester).resource(
            from: Graph.url("/a"), includes: ["[items]"], options: options)
        #expect(result["items"]?.arrayValue?.count == 100)
        #expect(result["items"]?[57]?["n"] == 7)
        #expect(await requester.requestCount == 11)
    }

    @Test func theConcurrencyLimitBoundsRequestsInFlight() async throws {
        let requester = InMemoryRequester(latency: .milliseconds(10))
        let links = (0..<40).map { Graph.link("/items/\($0)") }
        await requester.serve("/a", links: ["items": .array(links)])
        for index in 0..<40 { await requester.register(base + "/items/\(index)", json: ["n": .int(index)]) }
        for limit in [1, 3, 8] {
            await requester.resetCounts()
            var options = CallOptions()
            options.maxConcurrency = limit
            _ = try await ResourceManager(requester: requester).resource(
                from: Graph.url("/a"), includes: ["[items]"], options: options)
            #expect(await requester.maxInFlight <= limit)
            #expect(await requester.maxInFlight == limit, "the limit is also reached, so it is the bound that holds")
        }
    }

    /// A to-many of leaves runs only as many workers as the limit, unless a request may wait
    /// without a slot: here the first item's retry pauses for a minute, and the slot it left
    /// must serve the other items meanwhile, not sit idle until the pause ends.
    @Test func aSlotFreedByARetrysPauseServesTheNextLeaf() async throws {
        let gate = GatedRequester()
        let requester = FailingFirstItem(gate: gate)
        await gate.serve("/a", links: ["items": .array((0..<3).map { Graph.link("/items/\($0)") })])
        for index in 1..<3 { await gate.serve("/items/\(index)", ["n": .int(index)]) }
        var options = CallOptions()
        options.maxConcurrency = 2
        options.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: .seconds(60), jitter: 0)
        let call = Task {
            try await ResourceManager(requester: requester).resource(
                from: Graph.url("/a"), includes: ["[items]"], options: options)
        }
        defer { call.cancel() }
        _ = try await gate.waitForParked(1)
        await gate.release()
        // `/items/0` answered 503 and its worker pauses: both other items must be in flight.
        let waiting = try await gate.waitForParked(2, limit: .seconds(5))
        #expect(Set(waiting) == [base + "/items/1", base + "/items/2"])
        call.cancel()
        _ = await call.result  // the pause ends with the cancellation, not after a minute
    }

    /// `Int.max` reads as "no limit": the fan-out's worker count is computed from the limit,
    /// and it must not overflow (a trap) on the way.
    @Test func theLargestConcurrencyLimitIsNoLimit() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/a", links: ["items": .array((0..<40).map { Graph.link("/items/\($0)") })])
        for index in 0..<40 { await requester.serve("/items/\(index)", ["n": .int(index)]) }
        var options = CallOptions()
        options.maxConcurrency = .max
        for include: Include in ["[items]", "[items].absent"] {
            let result = try await ResourceManager(requester: requester).resource(
                from: Graph.url("/a"), includes: [include], options: options)
            #expect(result["items"]?.arrayValue?.count == 40, "\(include)")
            #expect(result["items"]?[39]?["n"] == 39, "\(include)")
        }
    }

    @Test func aDepthThreeTreeTakesFourRoundTrips() async throws {
        let gate = GatedRequester()
        func add(_ path: String, level: Int) async {
            let children = level < 3 ? (0..<3).map { "\(path)-\($0)" } : []
            await gate.register(
                base + path,
                json: Graph.resource(
                    path, links: ["children": .array(children.map { Graph.link($0) })],
                    ["level": .int(level)]))
            for child in children { await add(child, level: level + 1) }
        }
        await add("/n", level: 0)
        var options = CallOptions()
        options.maxConcurrency = 64
        let call = Task {
            try await ResourceManager(requester: gate)
                .resource(from: Graph.url("/n"), includes: ["[children].[children].[children]"], options: options)
        }
        // Each round trip releases everything in flight; the next level must then be in flight
        // all at once. A one-at-a-time engine never parks a whole level.
        for (round, width) in [1, 3, 9, 27].enumerated() {
            let waiting = try await gate.waitForParked(width)
            #expect(waiting.count == width, "round \(round + 1)")
            await gate.release()
        }
        let result = try await call.value
        #expect(result["children"]?[2]?["children"]?[1]?["children"]?[0]?["level"] == 3)
        #expect(await gate.arrivals.count == 40)
    }

    @Test func childrenStartAsSoonAsTheirParentArrivesNotWhenTheLevelDoes() async throws {
        let gate = GatedRequester()
        await gate.serve("/root", links: ["kids": [Graph.link("/slow"), Graph.link("/fast")]])
        await gate.serve("/slow", links: ["kids": [Graph.link("/slow/child")]])
        await gate.serve("/fast", links: ["kids": [Graph.link("/fast/child")]])
        await gate.register(base + "/slow/child", json: ["leaf": "slow"])
        await gate.register(base + "/fast/child", json: ["leaf": "fast"])
        let call = Task {
            try await ResourceManager(requester: gate).resource(from: Graph.url("/root"), includes: ["[kids].[kids]"])
        }
        _ = try await gate.waitForParked(1)
        await gate.release()
        _ = try await gate.waitForParked(2)
        await gate.release { $0.hasSuffix("/fast") }
        // /slow is still pending, yet the fast branch's child is already requested.
        let waiting = try await gate.waitForParked(2)
        #expect(Set(waiting) == [base + "/slow", base + "/fast/child"])
        await gate.release()
        _ = try await gate.waitForParked(1)
        await gate.release()
        let result = try await call.value
        #expect(result["kids"]?.arrayValue?.map { $0["kids"]?[0]?["leaf"] } == ["slow", "fast"])
    }

    @Test func cancellingTheCallerCancelsInFlightRequestsPromptly() async throws {
        let requester = InMemoryRequester(latency: .seconds(120))
        await requester.register(
            base + "/a",
            json: Graph.resource("/a", links: ["items": [Graph.link("/1"), Graph.link("/2")]]), latency: .zero)
        let manager = ResourceManager(requester: requester)
        let clock = ContinuousClock()
        let start = clock.now
        let task = Task { try await manager.resource(from: Graph.url("/a"), includes: ["[items]"]) }
        // Cancel once both item requests are in flight, however slow the machine is.
        while await requester.requestCount < 3 { try await Task.sleep(for: .milliseconds(5)) }
        let cancelledAt = clock.now
        task.cancel()
        let outcome = await task.result
        // Bounds far below the 120 s responses, with room for a loaded machine under a sanitizer.
        #expect(clock.now - cancelledAt < .seconds(60))
        #expect(clock.now - start < .seconds(90), "the 120 s responses were not waited for")
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(await requester.requestCount == 3)
    }

    @Test func byDefaultAFailedRelationshipFailsTheCallNamingPathURLAndStatus() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/a", links: ["items": [Graph.link("/ok"), Graph.link("/gone")]])
        await requester.register(base + "/ok", json: ["ok": true])
        await requester.register(
            base + "/gone",
            InMemoryRequester.Route(
                status: 404, headers: ["Content-Type": "application/problem+json"],
                body: Data(#"{"title": "Gone away", "status": 404}"#.utf8)))
        await #expect {
            try await ResourceManager(requester: requester).resource(from: Graph.url("/a"), includes: ["[items]"])
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .http && error.includePath == "[items]" && error.url == Graph.url("/gone")
                && error.httpError?.status == 404 && error.httpError?.problem?["title"] == "Gone away"
                && error.description.contains("Gone away")
        }
    }

    @Test func partialModeReturnsWhatSucceededAndListsEachFailure() async throws {
        let requester = InMemoryRequester()
        await requester.serve(
            "/a",
            links: [
                "items": [Graph.link("/ok"), Graph.link("/broken"), Graph.link("/ok2")],
                "owner": Graph.link("/owner"),
            ])
        await requester.serve("/ok", links: ["website": Graph.link("/w-missing")], ["n": 1])
        await requester.register(base + "/ok2", json: ["n": 2])
        await requester.register(base + "/broken", text: "<html>oops</html>")
        await requester.register(base + "/owner", json: ["name": "Owner"])
        let result = try await ResourceManager(requester: requester)
            .traverse(Graph.url("/a"), includes: ["[items].website", "owner"])
        #expect(result.document["owner"]?["name"] == "Owner")
        #expect(result.document["items"]?.arrayValue?.map { $0["n"] } == [1, 2])
        #expect(result.document["items"]?[0]?["website"] == nil)
        let failures = result.failures.sorted { ($0.url?.path ?? "") < ($1.url?.path ?? "") }
        #expect(failures.map(\.code) == [.invalidDocument, .http])
        #expect(failures.map(\.includePath) == ["[items]", "[items].website"])
        #expect(failures.map { $0.url?.path } == ["/broken", "/w-missing"])
        #expect(result.requestCount == 6)
    }

    @Test func theRequestLimitStopsEndlessGraphs() async throws {
        let requester = InMemoryRequester()
        let links = (0..<20).map { Graph.link("/items/\($0)") }
        await requester.serve("/a", links: ["items": .array(links)])
        for index in 0..<20 { await requester.register(base + "/items/\(index)", json: ["n": .int(index)]) }
        var options = CallOptions()
        options.maxRequests = 10
        await #expect {
            try await ResourceManager(requester: requester).resource(
                from: Graph.url("/a"), includes: ["[items]"], options: options)
        } throws: { ($0 as? HalleyError)?.code == .limitExceeded }
        #expect(await requester.requestCount <= 10)
        options.maxIncludeDepth = 2
        await #expect {
            try await ResourceManager(requester: requester).resource(
                from: Graph.url("/a"), includes: ["a.b.c"], options: options)
        } throws: { ($0 as? HalleyError)?.code == .limitExceeded }
    }

    @Test func observerSeesEveryRequestWithStatusBytesAndIncludePath() async throws {
        let requester = await Graph.contacts()
        let log = EventLog()
        var configuration = ResourceManager.Configuration()
        configuration.observer = log.observer
        _ = try await ResourceManager(requester: requester, configuration: configuration)
            .resource(from: Graph.url("/contacts/1"), includes: ["website"])
        let started = log.all.filter { if case .requestStarted = $0 { true } else { false } }
        #expect(started.count == 2)
        let finished = log.finished
        #expect(finished.map(\.includePath) == [nil, "website"])
        #expect(finished.allSatisfy { $0.status == 200 && ($0.bytes ?? 0) > 0 && $0.duration != nil })
    }

    @Test func malformedIncludesAreTypedErrorsBeforeAnyRequest() async throws {
        let requester = InMemoryRequester()
        await #expect {
            try await ResourceManager(requester: requester).resource(from: Graph.url("/a"), includes: ["[contacts"])
        } throws: { error in
            guard let error = error as? HalleyError, let underlying = error.underlying as? IncludePathError else {
                return false
            }
            return error.code == .invalidInclude && underlying.offset == 9
        }
        #expect(await requester.requestCount == 0)
    }
}

/// `/items/0` answers 503 at once; everything else waits at the gate.
private struct FailingFirstItem: ResourceRequester {
    let gate: GatedRequester

    func response(for request: ResourceRequest) async throws -> ResourceResponse {
        guard request.url.path == "/items/0" else { return try await gate.response(for: request) }
        return ResourceResponse(status: 503, url: request.url, body: Data())
    }
}
