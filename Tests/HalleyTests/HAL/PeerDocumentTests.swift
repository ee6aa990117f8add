import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Documents that other HAL clients and servers produce and accept: plain values in
/// `_embedded` (Spring's `CollectionModel<String>`) and named links beside broken siblings.
@Suite struct PeerDocumentTests {
    static let strings = #"{"_links":{"self":{"href":"/strings"}},"_embedded":{"strings":["a","b"]}}"#

    /// `ea:admin` has a broken link named `fred`, a good one named `boss` and a broken one
    /// named `intern`.
    static let admins: JSONValue = Graph.resource(
        "/admins",
        links: [
            "ea:admin": [
                ["name": "fred"], Graph.link("/boss", ["name": "boss"]),
                ["href": "/intern", "templated": "yes", "name": "intern"],
            ]
        ])

    // MARK: Plain values in _embedded

    @Test func plainEmbeddedValuesAreKeptAsDataAndReported() throws {
        let resource = try HALResource(parsing: Data(Self.strings.utf8))
        #expect(resource.embedded.value(for: "strings") == ["a", "b"])
        #expect(resource.embedded.entries.isEmpty)
        #expect(resource.problems.map(\.code) == [.resourceNotObject])
        #expect(resource.problems.first?.path == "$._embedded.strings[0]")
        #expect(resource.problems.first?.relation == "strings")
        #expect(resource.json["_embedded"]?["strings"] == ["a", "b"])

        let scalar = try HALResource(parsing: Data(#"{"_embedded":{"count":3}}"#.utf8))
        #expect(scalar.embedded.value(for: "count") == 3)
        #expect(scalar.problems.first?.path == "$._embedded.count")
    }

    @Test func strictParsingStillRejectsPlainEmbeddedValues() {
        #expect {
            _ = try HALResource(parsing: Data(Self.strings.utf8), options: HALParsingOptions(malformedLinks: .fail))
        } throws: { ($0 as? HALDocumentError)?.code == .resourceNotObject }
    }

    @Test func traversalKeepsPlainValuesInTheMergedOutputAndFailsOnlyWhenTheyAreIncluded() async throws {
        let requester = InMemoryRequester()
        await requester.register(Graph.base + "/strings", text: Self.strings)
        let manager = ResourceManager(requester: requester)
        let merged = try await manager.resource(from: Graph.url("/strings"))
        #expect(merged["_embedded"]?["strings"] == ["a", "b"])
        await #expect {
            _ = try await manager.resource(from: Graph.url("/strings"), includes: ["[strings]"])
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .malformedLink && error.message.contains("strings") && error.includePath == "[strings]"
        }
        await #expect {
            _ = try await manager.resourceCollection(from: Graph.url("/strings"))
        } throws: { ($0 as? HalleyError)?.code == .invalidDocument }
    }

    // MARK: Named links beside broken siblings

    @Test func selectionByNameSkipsMalformedSiblings() async throws {
        let requester = InMemoryRequester()
        await requester.register(Graph.base + "/admins", json: Self.admins)
        await requester.register(Graph.base + "/boss", json: Graph.resource("/boss", ["name": "Boss"]))
        let manager = ResourceManager(requester: requester)

        let merged = try await manager.resource(from: Graph.url("/admins"), includes: ["ea:admin@boss"])
        #expect(merged["ea:admin"]?["name"] == "Boss")
        let followed = try await manager.entry(Graph.url("/admins")).follow("ea:admin", named: "boss").get()
        #expect(followed["name"] == "Boss")

        for name in ["fred", "intern"] {
            await #expect("the selected link \(name) is malformed") {
                _ = try await manager.resource(from: Graph.url("/admins"), includes: [Include("ea:admin@\(name)")])
            } throws: { ($0 as? HalleyError)?.code == .malformedLink }
            await #expect {
                _ = try await manager.entry(Graph.url("/admins")).follow("ea:admin", named: name).resource()
            } throws: { ($0 as? HalleyError)?.code == .malformedLink }
        }
        await #expect("without a name the relation has malformed links") {
            _ = try await manager.resource(from: Graph.url("/admins"), includes: ["[ea:admin]"])
        } throws: { ($0 as? HalleyError)?.code == .malformedLink }
    }
}
