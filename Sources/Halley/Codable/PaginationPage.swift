import Foundation

/// One page of a paginated collection: its items (with includes merged and decoded), its
/// Spring-style metadata when present, and its navigation links.
///
/// ```swift
/// var page = try await manager.requestPage(HalleyRequest<Contact>(url: "https://api.example.com/contacts"))
/// while let next = try await manager.nextPage(of: page) { page = next }
/// ```
public struct PaginationPage<Item: Decodable> {
    /// The items, in order.
    public let items: [Item]
    /// The `page` object (`size`, `totalElements`, `totalPages`, `number`), when present.
    public let metadata: PageMetadata?
    /// The page's links.
    public let links: Links
    /// The URL the page came from.
    public let url: URL
    /// The request that produced this page; the next page repeats it with the `next` URL.
    public let request: HalleyRequest<Item>
    /// Whose origin receives the credentials of this page and the pages reached from it:
    /// the first page's start, never a later page's own URL.
    let trustRoot: URL

    /// The `first` link.
    public var first: Link? { links.link(for: .first) }
    /// The `prev` link.
    public var previous: Link? { links.link(for: .prev) }
    /// The `next` link.
    public var next: Link? { links.link(for: .next) }
    /// The `last` link.
    public var last: Link? { links.link(for: .last) }
}

/// Spring Data REST's paging metadata.
public struct PageMetadata: Sendable, Hashable, Codable {
    /// Items per page.
    public let size: Int
    /// Items in the whole collection.
    public let totalElements: Int
    /// Pages in the whole collection.
    public let totalPages: Int
    /// This page's zero-based index.
    public let number: Int

    /// Creates metadata.
    public init(size: Int, totalElements: Int, totalPages: Int, number: Int) {
        self.size = size
        self.totalElements = totalElements
        self.totalPages = totalPages
        self.number = number
    }

    /// Reads the four integers from a `page` object; `nil` when one is missing.
    init?(_ object: JSONObject?) {
        guard let object, let size = object["size"]?.intValue, let total = object["totalElements"]?.intValue,
            let pages = object["totalPages"]?.intValue, let number = object["number"]?.intValue
        else { return nil }
        self.init(size: size, totalElements: total, totalPages: pages, number: number)
    }
}

extension PaginationPage: Sendable where Item: Sendable {}
