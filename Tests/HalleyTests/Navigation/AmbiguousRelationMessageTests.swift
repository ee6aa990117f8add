import Foundation
import Halley
import HalleyTestSupport
import Testing

/// A rel with several links where one is needed: the message names the fix of the call that
/// hit it (a chain's `.follow(rel, named:)`, an action's `linkName:`), not the include-path
/// syntax (`rel@name`, `[rel]`) a chain and an action have no place for.
@Suite struct AmbiguousRelationMessageTests {
    private static let fixtures = ResourceManager(requester: FileRequester(directory: Fixture.url("api")))

    private static func error(_ body: () async throws -> Void) async -> HalleyError? {
        await halleyError(of: body)
    }

    /// Ada (`/contacts/1` of the sample API) links two named contacts, grace and alan.
    @Test func aChainNamesItsOwnFixAndTheFixWorks() async throws {
        let ada = Self.fixtures.entry("https://api.example.com/").follow("contact", ["id": 1])
        let error = try #require(await Self.error { _ = try await ada.follow("contacts").get() })
        #expect(error.code == .ambiguousRelation)
        #expect(error.includePath == "contact.contacts")
        #expect(
            error.message
                == #"hop 2 (contacts) has 2 links (names: "grace", "alan") and a chain follows one; "#
                + #"pick it with .follow("contacts", named: "grace")"#)
        #expect(!error.message.contains("@"))
        #expect(!error.message.contains("[contacts]"))

        let grace = try await ada.follow("contacts", named: "grace").get()
        #expect(grace["name"] == "Grace Hopper")
    }

    /// An include path still proposes the include-path fixes.
    @Test func anIncludeKeepsTheIncludePathFixes() async throws {
        let url = URL(string: "https://api.example.com/contacts/1")!
        let error = try #require(
            await Self.error { _ = try await Self.fixtures.resource(from: url, includes: ["contacts"]) })
        #expect(error.code == .ambiguousRelation)
        #expect(
            error.message
                == #"to-one relation contacts has 2 links (names: "grace", "alan"); "#
                + "pick one with contacts@name or include it as [contacts]")
    }

    @Test func anActionNamesItsLinkName() async throws {
        let ada = try await Self.fixtures.document(at: URL(string: "https://api.example.com/contacts/1")!)
        let error = try #require(await Self.error { _ = try await Self.fixtures.send(.post, rel: "contacts", of: ada) })
        #expect(error.code == .ambiguousRelation)
        #expect(
            error.message
                == #"relation contacts has 2 links (names: "grace", "alan") and an action goes to one; "#
                + #"pick it with send(_:rel:of:linkName:) and linkName: "grace""#)
    }

    /// Without names a chain cannot pick a link, and an embedded relation of several
    /// resources is no better: the message says so instead of proposing a name.
    @Test func unnamedLinksAndEmbeddedResourcesSayWhatToDoInstead() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            "https://api.example.com/",
            json: [
                "_links": [
                    "self": ["href": "/"],
                    "item": [["href": "/1"], ["href": "/2"]],
                    "pick": [["href": "/1", "name": "first"], ["href": "/2", "name": "second"]],
                ],
                "_embedded": [
                    "found": [["n": 1], ["n": 2]],
                    "pick": [["n": 1], ["n": 2]],
                ],
            ])
        let root = ResourceManager(requester: requester).entry("https://api.example.com/")

        let unnamed = try #require(await Self.error { _ = try await root.follow("item").url() })
        #expect(
            unnamed.message
                == #"hop 1 (item) has 2 links (names: (unnamed), (unnamed)) and a chain follows one; "#
                + "no link has a name to pick it by: read them from the resource before hop 1 "
                + "(.resource() on the chain without it)")

        let embedded = try #require(await Self.error { _ = try await root.follow("found").get() })
        #expect(embedded.code == .ambiguousRelation)
        #expect(
            embedded.message
                == "hop 1 (found) embeds 2 resources and a chain follows one; no link has a name to pick it by: "
                + "read them from the resource before hop 1 (.resource() on the chain without it)")

        // Embedded resources beside named links: the chain's name picks a link.
        let both = try #require(await Self.error { _ = try await root.follow("pick").get() })
        #expect(
            both.message
                == #"hop 1 (pick) embeds 2 resources and a chain follows one; pick it with .follow("pick", named: "first")"#
        )
        #expect(try await root.follow("pick", named: "second").url().absoluteString == "https://api.example.com/2")
    }
}
