// swift-format-ignore-file
// PagingAndRandomAccess.md's Swift blocks, verbatim between `// snippet` and
// `// end snippet` (SnippetSyncTests holds them to the article). Everything else is
// scaffolding; ArticleSnippetTests runs the functions against Fixtures/api and the shop.
import Foundation
import Halley

@MainActor func pagingPageAtATime(manager: ResourceManager) async throws -> [String] {
    // snippet PagingAndRandomAccess.md "Page at a time"
    var page = try await manager.requestPage(HalleyRequest<Contact>(url: "https://api.example.com/contacts"))
    var names = page.items.map(\.name)
    while let next = try await manager.nextPage(of: page) {
        page = next
        names += page.items.map(\.name)
    }
    // ["Ada Lovelace", "Grace Hopper", "Alan Turing"]
    // end snippet
    return names
}

@MainActor func pagingSequence(manager: ResourceManager) async throws -> [String] {
    var names: [String] = []
    // snippet PagingAndRandomAccess.md "Sequence"
    for try await contact in manager.items(Contact.self, from: "https://api.example.com/contacts") {
        print(contact.name)
        // end snippet
        names.append(contact.name)
        // snippet PagingAndRandomAccess.md "Sequence"
    }
    // end snippet
    return names
}

@MainActor func pagingShaping(manager: ResourceManager) async throws -> (first: [Contact], page: [Contact], two: [Contact], ahead: [Contact]) {
    // snippet PagingAndRandomAccess.md "Shaping"
    let contacts = manager.items(Contact.self, from: "https://api.example.com/contacts")
    let firstTwo = try await contacts.limited(toItems: 2).collect()
    let firstPage = try await contacts.limited(toPages: 1).collect()
    let twoPages = try await contacts.stop { page in page.index == 1 }.collect()
    let ahead = contacts.prefetching()
    // end snippet
    return (firstTwo, firstPage, twoPages, try await ahead.collect())
}

@MainActor func pagingRandomAccess(manager: ResourceManager) async throws -> (first: Int?, last: Int?, beyond: Int?, slice: [Int], lastTen: [Int]) {
    // snippet PagingAndRandomAccess.md "Random access"
    struct Order: Decodable {
        let id: Int
    }

    let orders = manager.items(Order.self, from: "https://shop.example.com/orders{?page,size}",
                               variables: ["size": 10])
    let first = try await orders.item(at: 0)         // fetches page 0
    let last = try await orders.item(at: 94)         // fetches page 9, and only page 9
    let beyond = try await orders.item(at: 95)       // nil: past the end
    let slice = try await orders.items(in: 25..<35)  // fetches pages 2 and 3

    let fromURL = manager.items(Order.self, from: URL(string: "https://shop.example.com/orders?page=0&size=10")!)
    let lastTen = try await fromURL.items(in: 85..<95)  // page 0 (for the size), then pages 8 and 9
    // end snippet
    return (first?.id, last?.id, beyond?.id, slice.map(\.id), lastTen.map(\.id))
}

@MainActor func pagingMismatch(manager: ResourceManager) async throws -> HalleyError? {
    struct Order: Decodable {
        let id: Int
    }
    // snippet PagingAndRandomAccess.md "Page mismatch"
    do {
        let legacy = manager.items(Order.self, from: "https://legacy.example.com/orders{?page,size}",
                                   variables: ["size": 10])
        _ = try await legacy.item(at: 42)
    } catch let error as HalleyError where error.code == .pageMismatch {
        print(error.message)  // asked for page 4 of size 10 but the server answered page 0 of size 10
        // end snippet
        return error
        // snippet PagingAndRandomAccess.md "Page mismatch"
    }
    // end snippet
    return nil
}

func pagingNumbering(manager: ResourceManager) -> (String, String, Int) {
    struct Order: Decodable {
        let id: Int
    }
    // snippet PagingAndRandomAccess.md "Numbering"
    var numbered = manager.items(Order.self, from: "https://shop.example.com/orders{?p,per_page}",
                                 variables: ["per_page": 25])
    numbered.pageVariable = "p"
    numbered.sizeVariable = "per_page"
    numbered.firstPageNumber = 1
    // end snippet
    return (numbered.pageVariable, numbered.sizeVariable, numbered.firstPageNumber)
}

@MainActor func pagingFromChain(manager: ResourceManager) async throws -> (PaginationPage<Contact>, [Contact]) {
    // snippet PagingAndRandomAccess.md "From a chain"
    let chain = manager.entry("https://api.example.com/").follow("contacts")
    let firstContacts = try await chain.page(of: Contact.self)
    let everyone = try await chain.items(Contact.self).collect()
    // end snippet
    return (firstContacts, everyone)
}
