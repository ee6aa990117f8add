import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Every entry point sets its call up once: the variable provider's closures run once per
/// call, whichever way the call starts.
@Suite struct CallSetUpTests {
    let base = Graph.base
    struct Numbered: Decodable { let n: Int }

    /// A manager whose provider's `v` closure counts its runs, and the counter.
    private func manager() async -> (ResourceManager, LockedValue<Int>) {
        let requester = InMemoryRequester()
        await requester.register(
            base + "/v/1",
            json: Graph.resource("/v/1", links: ["next": Graph.link("/v/2"), "act": Graph.link("/act")], ["n": 1]))
        await requester.register(base + "/v/2", json: Graph.resource("/v/2", ["n": 2]))
        await requester.register(
            base + "/pages/1",
            json: Graph.resource(
                "/pages/1", links: ["next": Graph.link("/pages/2")],
                embedded: ["item": [Graph.resource("/items/1", ["n": 1])]]))
        await requester.register(
            base + "/pages/2",
            json: Graph.resource("/pages/2", embedded: ["item": [Graph.resource("/items/2", ["n": 2])]]))
        for url in [base + "/act", base + "/act?v=1"] {
            await requester.register(url) { request in
                ResourceResponse(status: 204, url: request.url, body: Data())
            }
        }
        let runs = LockedValue(0)
        let provider = TemplateVariableProvider()
        provider.set("v") {
            runs.withLock { $0 += 1 }
            return "1"
        }
        var configuration = ResourceManager.Configuration()
        configuration.templateVariables = provider
        return (ResourceManager(requester: requester, configuration: configuration), runs)
    }

    @Test(arguments: [
        "resource from a template", "document at a template", "traverse a template", "send to a template",
        "typed request from a template", "follow chain from a template", "chain send",
        "first page of paged items from a template", "next page",
    ])
    func theProviderRunsOncePerCall(_ entryPoint: String) async throws {
        let (manager, runs) = await manager()
        let template = base + "/v/{v}"
        switch entryPoint {
        case "resource from a template": _ = try await manager.resource(from: template)
        case "document at a template": _ = try await manager.document(at: template)
        case "traverse a template": _ = try await manager.traverse(template, includes: ["next"])
        case "send to a template": _ = try await manager.send(.post, to: base + "/act{?v}")
        case "typed request from a template": _ = try await manager.request(HalleyRequest<Numbered>(url: template))
        case "follow chain from a template": _ = try await manager.entry(template).follow("next").get()
        case "chain send": _ = try await manager.entry(template).follow("act").send(.post)
        case "first page of paged items from a template":
            _ = try await manager.items(Numbered.self, from: base + "/pages/{v}").limited(toPages: 1).collect()
        case "next page":
            let first = try await manager.requestPage(HalleyRequest<Numbered>(url: Graph.url("/pages/1")))
            runs.set(0)
            _ = try await manager.nextPage(of: first)
        default: Issue.record("no such entry point: \(entryPoint)")
        }
        #expect(runs.get() == 1, "\(entryPoint): the provider ran \(runs.get()) times")
    }
}
