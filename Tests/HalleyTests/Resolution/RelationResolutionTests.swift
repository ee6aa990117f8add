import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// The three ways to reach a relation (an include, a follow chain hop, an action on a rel)
/// go through one resolver, so the same document gives the same errors and events.
@Suite struct RelationResolutionTests {
    /// A resource with one of each case a resolver must decide.
    static let document: JSONValue = Graph.resource(
        "/doc",
        links: [
            "broken": ["title": "no href"],
            "many": [Graph.link("/one"), Graph.link("/two")],
            "old": Graph.link("/old", ["deprecation": "https://api.example.com/deprecations/old"]),
            "admin": [["name": "fred"], Graph.link("/boss", ["name": "boss"])],
        ], embedded: ["strings": ["a", "b"]])

    enum Path: CaseIterable { case include, chain, action }

    /// Runs the path to `rel` and returns its error code (or nil) and the events it emitted.
    private func reach(_ rel: String, named name: String? = nil, by path: Path) async throws
        -> (error: HalleyError?, events: [HalleyEvent])
    {
        let requester = InMemoryRequester()
        await requester.register(Graph.base + "/doc", json: Self.document)
        for target in ["/one", "/two", "/old", "/boss"] {
            await requester.register(Graph.base + target, json: Graph.resource(target))
        }
        let log = EventLog()
        let manager = ResourceManager.over(requester) { $0.observer = log.observer }
        do {
            switch path {
            case .include:
                _ = try await manager.resource(
                    from: Graph.url("/doc"),
                    includes: [Include(name.map { "\(rel)@\($0)" } ?? rel)])
            case .chain:
                _ = try await manager.entry(Graph.url("/doc")).follow(LinkRelation(rel), named: name).get()
            case .action:
                let document = try await manager.document(at: Graph.url("/doc"))
                _ = try await manager.send(.post, rel: LinkRelation(rel), of: document, linkName: name)
            }
            return (nil, log.all)
        } catch let error as HalleyError {
            return (error, log.all)
        }
    }

    @Test(arguments: [
        ("broken", HalleyError.Code.malformedLink), ("many", .ambiguousRelation), ("strings", .malformedLink),
    ])
    func everyPathGivesTheSameErrorForTheSameDocument(rel: String, code: HalleyError.Code) async throws {
        var messages: Set<String> = []
        for path in Path.allCases {
            let (error, _) = try await reach(rel, by: path)
            #expect(error?.code == code, "\(path)")
            #expect(error?.url?.absoluteString == Graph.base + "/doc", "\(path)")
            if let error { messages.insert(error.message) }
        }
        // An ambiguity is worded as each path's own fix (rel@name, .follow(rel, named:),
        // linkName:); every other error reads the same whichever path met it.
        let expected = code == .ambiguousRelation ? Path.allCases.count : 1
        #expect(messages.count == expected, "messages for the three paths: \(messages)")
    }

    @Test func everyPathEmitsTheDeprecationEvent() async throws {
        for path in Path.allCases {
            let (error, events) = try await reach("old", by: path)
            #expect(error == nil, "\(path): \(String(describing: error))")
            let deprecated = events.compactMap { event -> URL? in
                if case .deprecatedLinkFollowed(_, let url, _) = event { url } else { nil }
            }
            #expect(deprecated == [Graph.url("/old")], "\(path)")
        }
    }

    @Test func everyPathSelectsANamedLinkPastABrokenSibling() async throws {
        for path in Path.allCases {
            #expect(try await reach("admin", named: "boss", by: path).error == nil, "\(path)")
            #expect(try await reach("admin", named: "fred", by: path).error?.code == .malformedLink, "\(path)")
        }
    }

    @Test func aRequiredRelationThatIsMissingListsTheSameAvailableRels() async throws {
        let expected = "available rels: self, broken, many, old, admin, strings"
        for path in [Path.chain, .action] {
            let error = try #require(try await reach("nope", by: path).error, "\(path)")
            #expect(error.code == .missingRelation)
            #expect(error.message.hasSuffix(expected), "\(path): \(error.message)")
        }
        // An include is optional: the relationship is left out and an event says so.
        let (error, events) = try await reach("nope", by: .include)
        #expect(error == nil)
        #expect(events.contains { if case .relationMissing = $0 { true } else { false } })
    }
}
