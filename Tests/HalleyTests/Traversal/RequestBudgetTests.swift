import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// A to-many relation larger than the call's request budget (`maxRequests`) fails before
/// anything of it is requested, whatever the scheduling; duplicates within the budget pass.
@Suite struct RequestBudgetTests {
    let base = Graph.base

    /// A root whose `items` relation has `count` links to `/items/(index % distinct)`.
    func root(count: Int, distinct: Int) async -> InMemoryRequester {
        let requester = InMemoryRequester()
        let links = (0..<count).map { Graph.link("/items/\($0 % distinct)") }
        await requester.register(base + "/root", json: Graph.resource("/root", links: ["items": .array(links)]))
        for index in 0..<distinct {
            await requester.register(
                base + "/items/\(index)", json: Graph.resource("/items/\(index)", ["n": .int(index)]))
        }
        return requester
    }

    @Test func aRelationPastTheBudgetFailsBeforeAnyOfItsRequests() async throws {
        let requester = await root(count: 5_000, distinct: 5_000)
        var options = CallOptions()
        options.maxRequests = 10
        await #expect {
            try await ResourceManager(requester: requester).resource(
                from: Graph.url("/root"), includes: ["[items]"], options: options)
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .limitExceeded && error.includePath == "[items]"
                && error.message.contains("5000 links") && error.url == Graph.url("/root")
        }
        #expect(await requester.requestCount == 1, "only the root: no item was requested")
    }

    @Test func partialModeReportsTheRelationOnceAndKeepsTheRest() async throws {
        let requester = await root(count: 300, distinct: 300)
        var options = CallOptions()
        options.maxRequests = 50
        let result = try await ResourceManager(requester: requester).traverse(
            Graph.url("/root"), plan: IncludePlan(paths: ["[items]"]), options: options)
        #expect(result.failures.map(\.code) == [.limitExceeded])
        #expect(result.failures.map(\.includePath) == ["[items]"])
        #expect(result.document["items"] == nil)
        #expect(result.requestCount == 1)
    }

    @Test func manyLinksToFewURLsStayWithinTheBudget() async throws {
        let requester = await root(count: 5_000, distinct: 5)
        var options = CallOptions()
        options.maxRequests = 6
        let document = try await ResourceManager(requester: requester).resource(
            from: Graph.url("/root"), includes: ["[items]"], options: options)
        let numbers = document["items"]?.arrayValue?.compactMap { $0["n"]?.intValue } ?? []
        #expect(numbers == (0..<5_000).map { $0 % 5 }, "every link merged, in link order")
        #expect(await requester.requestCount == 6)
    }

    @Test func urlsAlreadyFetchedByTheCallDoNotCountAgain() async throws {
        // The root links itself as one of the items: a URL the call already has is free.
        let requester = InMemoryRequester()
        let links = [Graph.link("/root")] + (0..<3).map { Graph.link("/items/\($0)") }
        await requester.register(base + "/root", json: Graph.resource("/root", links: ["items": .array(links)]))
        for index in 0..<3 {
            await requester.register(
                base + "/items/\(index)", json: Graph.resource("/items/\(index)", ["n": .int(index)]))
        }
        var options = CallOptions()
        options.maxRequests = 4
        let document = try await ResourceManager(requester: requester).resource(
            from: Graph.url("/root"), includes: ["[items]"], options: options)
        #expect(document["items"]?.arrayValue?.count == 4)
        #expect(await requester.requestCount == 4)
    }
}
