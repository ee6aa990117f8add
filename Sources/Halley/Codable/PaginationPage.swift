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

extension PaginationPage: Sendable where Item: Sendable {}
