import Foundation
import Halley
import Testing

/// Every page value carries the page document itself, so the paging figures of a server other
/// than Spring Data REST (`count`, `total`, `offset`) are readable beside Spring's parsed
/// `page` metadata.
@Suite struct PageDocumentTests {
    struct Book: Decodable, Sendable, Equatable {
        let title: String
    }

    /// Two pages in the shape of Django REST Framework's or fastapi-hypermodel's: the figures
    /// are the page's own members, there is no `page` object.
    private func nonSpringPages() async -> InMemoryRequester {
        let requester = InMemoryRequester()
        await requester.register(
            "https://api.example.com/books",
            text: """
                {"count": 120, "total": 120, "offset": 0,
                 "_links": {"self": {"href": "/books"}, "next": {"href": "/books?offset=1"}},
                 "_embedded": {"item": [{"title": "Dune"}]}}
                """)
        await requester.register(
            "https://api.example.com/books?offset=1",
            text: """
                {"count": 120, "total": 120, "offset": 1,
                 "_links": {"self": {"href": "/books?offset=1"}},
                 "_embedded": {"item": [{"title": "Emma"}]}}
                """)
        await requester.register(
            "https://api.example.com/",
            text: #"{"_links": {"books": {"href": "/books"}}}"#)
        return requester
    }

    @Test func aTypedPageCarriesItsOwnMembers() async throws {
        let manager = ResourceManager(requester: await nonSpringPages())
        let page = try await manager.requestPage(HalleyRequest<Book>(url: "https://api.example.com/books"))
        #expect(page.items == [Book(title: "Dune")])
        #expect(page.metadata == nil, "no Spring page object")
        #expect(page.document.state["count"]?.intValue == 120)
        #expect(page.document.state["total"]?.intValue == 120)
        #expect(page.document.json["_links"] != nil, "the document as sent, links included")
        #expect(page.document.links.link(for: .next)?.href == "/books?offset=1")

        let next = try #require(try await manager.nextPage(of: page))
        #expect(next.document.state["offset"]?.intValue == 1)
        #expect(try await manager.nextPage(of: next) == nil)
    }

    @Test func aPageAtTheEndOfAChainCarriesItsOwnMembers() async throws {
        let manager = ResourceManager(requester: await nonSpringPages())
        let page = try await manager.entry(URL(string: "https://api.example.com/")!).follow("books").page(of: Book.self)
        #expect(page.document.state["count"]?.intValue == 120)
    }

    @Test func aSpringPageKeepsItsParsedMetadataBesideTheDocument() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            "https://api.example.com/books",
            text: """
                {"page": {"size": 1, "totalElements": 1, "totalPages": 1, "number": 0},
                 "_embedded": {"books": [{"title": "Dune"}]}}
                """)
        let page = try await ResourceManager(requester: requester).requestPage(
            HalleyRequest<Book>(url: "https://api.example.com/books"))
        #expect(page.metadata == PageMetadata(size: 1, totalElements: 1, totalPages: 1, number: 0))
        #expect(page.document.state["page"]?.objectValue?["totalElements"]?.intValue == 1)
    }

    @Test func thePagedSequenceShowsEachPageDocumentToItsStopCondition() async throws {
        let manager = ResourceManager(requester: await nonSpringPages())
        let books = try await manager.items(Book.self, from: URL(string: "https://api.example.com/books")!)
            .stop { page in page.document.state["offset"]?.intValue == 0 && page.document.state["count"] != nil }
            .collect()
        #expect(books == [Book(title: "Dune")], "stopped after the first page, as its document told")
    }

    @Test func anUntypedCollectionCarriesItsDocument() async throws {
        let manager = ResourceManager(requester: await nonSpringPages())
        let collection = try await manager.resourceCollectionWithMetadata(
            from: URL(string: "https://api.example.com/books")!)
        #expect(collection.metadata["count"]?.intValue == 120)
        #expect(collection.document.state["count"]?.intValue == 120)
        #expect(collection.document.embedded.rels == ["item"])
    }
}
