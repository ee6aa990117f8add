import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Every kind of call runs the validators on every 2xx response it reads: the pipeline runs
/// them, so no entry point can skip them.
@Suite struct ValidatorPathTests {
    let base = Graph.base
    struct Numbered: Decodable { let n: Int }

    /// A root linking every kind of target, a two-page collection (the first page links its
    /// item, the second embeds it), a HAL-FORMS template with a linked options list, and
    /// targets for actions and submissions.
    private func api() async -> InMemoryRequester {
        let requester = InMemoryRequester()
        let form: JSONValue = [
            "default": [
                "method": "POST", "target": "/submit",
                "properties": [["name": "choice", "options": ["link": ["href": "/options"]]]],
            ]
        ]
        var root = Graph.resource(
            "/root",
            links: [
                "rel": Graph.link("/rel"), "chain": Graph.link("/chain"), "pages": Graph.link("/page/0"),
                "act": Graph.link("/act"),
            ])
        var object = root.objectValue ?? [:]
        object["_templates"] = form
        root = .object(object)
        await requester.register(base + "/root", json: root)
        await requester.register(base + "/rel", json: Graph.resource("/rel", ["n": 1]))
        await requester.register(
            base + "/chain", json: Graph.resource("/chain", links: ["end": Graph.link("/chain-end")]))
        await requester.register(base + "/chain-end", json: Graph.resource("/chain-end", ["n": 2]))
        await requester.register(
            base + "/page/0",
            json: Graph.resource(
                "/page/0", links: ["item": .array([Graph.link("/item/0")]), "next": Graph.link("/page/1")]))
        await requester.register(
            base + "/page/1", json: Graph.resource("/page/1", embedded: ["item": [Graph.resource("/item/1", ["n": 1])]])
        )
        await requester.register(base + "/item/0", json: Graph.resource("/item/0", ["n": 0]))
        await requester.register(base + "/typed", json: Graph.resource("/typed", ["n": 3]))
        await requester.register(
            base + "/options",
            InMemoryRequester.Route(headers: ["Content-Type": "application/json"], body: Data(#"["a","b"]"#.utf8)))
        for path in ["/act", "/submit"] {
            await requester.register(base + path) { request in
                ResourceResponse(status: 201, url: request.url, body: Data("{}".utf8))
            }
        }
        return requester
    }

    /// Each path of the library and the URL whose response it must validate.
    private func paths(_ manager: ResourceManager, options: CallOptions) -> [(
        name: String, url: String, run: @Sendable () async throws -> Void
    )] {
        let root = Graph.url("/root")
        return [
            ("traversal root", "/root", { _ = try await manager.resource(from: root, options: options) }),
            ("relation", "/rel", { _ = try await manager.resource(from: root, includes: ["rel"], options: options) }),
            (
                "partial traversal relation", "/rel",
                {
                    let result = try await manager.traverse(root, includes: ["rel"], options: options)
                    if let failure = result.failures.first { throw failure }
                }
            ),
            ("action", "/act", { _ = try await manager.send(.post, to: Graph.url("/act"), options: options) }),
            (
                "action on a rel", "/act",
                {
                    let document = try await manager.document(at: root)
                    _ = try await manager.send(.post, rel: "act", of: document, options: options)
                }
            ),
            (
                "form submit", "/submit",
                {
                    let document = try await manager.document(at: root)
                    _ = try await manager.submit(document.forms.default!, of: document, options: options)
                }
            ),
            (
                "forms options list", "/options",
                {
                    let document = try await manager.document(at: root)
                    let property = document.forms.default!.property(named: "choice")!
                    _ = try await manager.options(for: property, of: document, options: options)
                }
            ),
            (
                "options list of a submission", "/options",
                {
                    let document = try await manager.document(at: root)
                    _ = try await manager.submit(
                        document.forms.default!, of: document, values: ["choice": "a"], options: options)
                }
            ),
            (
                "follow chain", "/chain-end",
                { _ = try await manager.entry(root, options: options).follow("chain").follow("end").get() }
            ),
            (
                "follow chain send", "/act",
                { _ = try await manager.entry(root, options: options).follow("act").send(.post) }
            ),
            (
                "paged items: a page", "/page/1",
                { _ = try await manager.items(Numbered.self, from: Graph.url("/page/0"), options: options).collect() }
            ),
            (
                "paged items: a linked item", "/item/0",
                { _ = try await manager.items(Numbered.self, from: Graph.url("/page/0"), options: options).collect() }
            ),
            (
                "typed request", "/typed",
                {
                    _ = try await manager.request(HalleyRequest<Numbered>(url: Graph.url("/typed"), options: options))
                }
            ),
            (
                "typed page and next page", "/page/1",
                {
                    let page = try await manager.requestPage(
                        HalleyRequest<Numbered>(url: Graph.url("/page/0"), options: options))
                    _ = try await manager.nextPage(of: page)
                }
            ),
            (
                "chain ending in a page", "/page/0",
                { _ = try await manager.entry(root, options: options).follow("pages").page(of: Numbered.self) }
            ),
        ]
    }

    @Test func everyPathRunsTheValidatorOnTheResponseItReads() async throws {
        let requester = await api()
        let manager = ResourceManager(requester: requester)
        let seen = LockedValue<[String]>([])
        var options = CallOptions()
        options.validator = { response, _ in seen.withLock { $0.append(response.url.path) } }
        for path in paths(manager, options: options) {
            seen.set([])
            try await path.run()
            #expect(seen.get().contains(path.url), "\(path.name): the validator saw \(seen.get())")
        }
    }

    @Test func aValidatorRejectionFailsEveryPathWithValidation() async throws {
        let requester = await api()
        struct Rejected: Error {}
        for path in paths(ResourceManager(requester: requester), options: CallOptions()) {
            var options = CallOptions()
            let rejected = path.url
            options.validator = { response, _ in if response.url.path == rejected { throw Rejected() } }
            let manager = ResourceManager(requester: requester)
            await #expect(throws: HalleyError.self, "\(path.name)") {
                do {
                    try await paths(manager, options: options).first { $0.name == path.name }!.run()
                } catch let error as HalleyError {
                    #expect(error.code == .validation, "\(path.name): \(error)")
                    #expect(error.underlying is Rejected, "\(path.name)")
                    throw error
                }
            }
        }
    }

    @Test func theDocumentValidatorGetsTheParsedDocumentAndActionsGetNone() async throws {
        let requester = await api()
        let documents = LockedValue<[String: Bool]>([:])
        var options = CallOptions()
        options.validator = { response, document in documents.withLock { $0[response.url.path] = document != nil } }
        let manager = ResourceManager(requester: requester)
        _ = try await manager.resource(from: Graph.url("/root"), includes: ["rel"], options: options)
        _ = try await manager.send(.post, to: Graph.url("/act"), options: options)
        #expect(documents.get() == ["/root": true, "/rel": true, "/act": false])
    }
}
