import Foundation
import HalleyHAL

/// One page of a paginated collection: its items (with includes merged and decoded), its
/// Spring-style metadata when present, its navigation links, and the page document itself.
///
/// ```swift
/// var page = try await manager.requestPage(HalleyRequest<Contact>(url: "https://api.example.com/contacts"))
/// while let next = try await manager.nextPage(of: page) { page = next }
/// ```
///
/// A server other than Spring keeps its paging figures in the page's own members; read them
/// from ``document``:
///
/// ```swift
/// // {"count": 120, "total": 120, "_links": {...}, "_embedded": {"item": [...]}}
/// let total = page.document.state["total"]?.intValue   // 120
/// ```
public struct PaginationPage<Item: Decodable> {
    /// The items, in order.
    public let items: [Item]
    /// Spring Data REST's `page` object (`size`, `totalElements`, `totalPages`, `number`),
    /// when present; another server's figures are in ``document``.
    public let metadata: PageMetadata?
    /// The page's links.
    public let links: Links
    /// The URL the page came from.
    public let url: URL
    /// The request that produced this page; the next page repeats it with the `next` URL.
    public let request: HalleyRequest<Item>
    /// The page document as the server sent it, `_links` and `_embedded` included: its own
    /// members (`count`, `total`, `page`) are in `document.state`.
    ///
    /// ```swift
    /// let page = try await manager.requestPage(HalleyRequest<Book>(url: "https://api.example.com/books"))
    /// page.document.state["count"]?.intValue   // e.g. 120, from {"count": 120, ...}
    /// ```
    public let document: HALResource
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
