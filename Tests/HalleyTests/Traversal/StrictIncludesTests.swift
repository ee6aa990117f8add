import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `CallOptions.strictIncludes` (issue #38): a misspelled include fails the call, naming the
/// include path and the rels the resource has; without it, the relationship is left out and an
/// event says so, as before.
@Suite struct StrictIncludesTests {
    struct Publisher: Decodable, Equatable {
        let name: String
    }

    struct Book: Decodable {
        let title: String
        let publisher: Publisher?
    }

    /// A book linking its publisher and author, and an author linking nothing else.
    func books() async -> InMemoryRequester {
        let requester = InMemoryRequester()
        await requester.serve(
            "/books/1", links: ["publisher": Graph.link("/publishers/1"), "author": Graph.link("/authors/1")],
            ["title": "Notes"])
        await requester.serve("/publishers/1", ["name": "Lovelace Press"])
        await requester.serve("/authors/1", ["name": "Ada"])
        return requester
    }

    var strict: CallOptions {
        var options = CallOptions()
        options.strictIncludes = true
        return options
    }

    /// The error a strict call with a misspelled include must fail with.
    func expectMissing(
        _ error: (any Error)?, path: String, rel: String, at url: String, rels: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error = error as? HalleyError else {
            Issue.record("expected a HalleyError, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == .missingRelation, "\(error)", sourceLocation: sourceLocation)
        #expect(error.includePath == path, "\(error)", sourceLocation: sourceLocation)
        #expect(error.url == Graph.url(url), "\(error)", sourceLocation: sourceLocation)
        #expect(
            error.description
                == "\(rel) is not in the resource; available rels: \(rels) "
                + "(include path \"\(path)\", URL \(Graph.base + url))",
            sourceLocation: sourceLocation)
    }

    @Test func theDefaultLeavesAMisspelledRelationOutAndReportsIt() async throws {
        let log = EventLog()
        let manager = ResourceManager(requester: await books())
        let json = try await manager.resource(from: Graph.url("/books/1"), includes: ["publishr"], options: log.options)
        #expect(json["title"] == "Notes")
        #expect(json["publishr"] == nil && json["publisher"] == nil)
        #expect(
            log.all.contains {
                if case .relationMissing("publishr", "publishr", Graph.url("/books/1")) = $0 { true } else { false }
            }, "\(log.all)")
    }

    @Test func aStrictUntypedCallFailsNamingThePathAndTheRelsThere() async throws {
        let manager = ResourceManager(requester: await books())
        let error = await #expect(throws: HalleyError.self) {
            _ = try await manager.resource(from: Graph.url("/books/1"), includes: ["publishr"], options: strict)
        }
        expectMissing(error, path: "publishr", rel: "publishr", at: "/books/1", rels: "self, publisher, author")

        // Nested: the rels are those of the resource that lacks the relation.
        let nested = await #expect(throws: HalleyError.self) {
            _ = try await manager.resource(from: Graph.url("/books/1"), includes: ["author.bio"], options: strict)
        }
        expectMissing(nested, path: "author.bio", rel: "bio", at: "/authors/1", rels: "self")

        // Spelled right, a strict call succeeds as a lenient one does.
        let json = try await manager.resource(from: Graph.url("/books/1"), includes: ["publisher"], options: strict)
        #expect(json["publisher"]?["name"] == "Lovelace Press")
    }

    @Test func aStrictTypedCallFailsAsTheUntypedOneDoes() async throws {
        let manager = ResourceManager(requester: await books())
        let request = HalleyRequest<Book>(url: Graph.url("/books/1"), includes: ["publishr"], options: strict)
        let error = await #expect(throws: HalleyError.self) { _ = try await manager.request(request) }
        expectMissing(error, path: "publishr", rel: "publishr", at: "/books/1", rels: "self, publisher, author")

        let chain = manager.entry(Graph.url("/books/1")).with(options: strict)
        let chained = await #expect(throws: HalleyError.self) {
            _ = try await chain.get(Book.self, includes: ["publishr"])
        }
        expectMissing(chained, path: "publishr", rel: "publishr", at: "/books/1", rels: "self, publisher, author")

        // Lenient, the typed call decodes the optional member as absent.
        let lenient = try await manager.request(HalleyRequest<Book>(url: Graph.url("/books/1"), includes: ["publishr"]))
        #expect(lenient.publisher == nil)
        let book = try await chain.get(Book.self, includes: ["publisher"])
        #expect(book.publisher == Publisher(name: "Lovelace Press"))
    }

    @Test func aStrictTraversalListsTheMissingRelationAmongItsFailures() async throws {
        let manager = ResourceManager(requester: await books())
        let result = try await manager.traverse(
            Graph.url("/books/1"), includes: ["publishr", "author"], options: strict)
        #expect(result.document["author"]?["name"] == "Ada")
        #expect(result.failures.map(\.code) == [.missingRelation])
        #expect(result.failures.first?.includePath == "publishr")
    }

    @Test func anEmptyEmbeddedRelationIsNotAMissingOne() async throws {
        // `_embedded.publisher: []` is the server saying "none": the relation is there.
        let requester = InMemoryRequester()
        await requester.serve("/books/2", embedded: ["publisher": .array([])], ["title": "Draft"])
        let json = try await ResourceManager(requester: requester)
            .resource(from: Graph.url("/books/2"), includes: ["publisher"], options: strict)
        #expect(json["title"] == "Draft")
    }
}
