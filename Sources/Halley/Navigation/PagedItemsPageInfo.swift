import Foundation

/// What a stop predicate (``PagedItems/stop(when:)``) sees of each page.
///
/// A type of its own rather than one nested in the generic ``PagedItems``: a nested type
/// would carry `Item` and its `Decodable` conformance into the predicate, which runs off the
/// caller's actor, so an app module built with default main-actor isolation (whose models'
/// conformances are main-actor isolated) could not write `stop { page in page.index == 1 }`.
/// ``PagedItems/PageInfo`` names it too.
public struct PagedItemsPageInfo: Sendable {
    /// Zero-based position of the page in this enumeration.
    public let index: Int
    /// The page's URL.
    public let url: URL
    /// The number of items on it.
    public let itemCount: Int
    /// Its Spring-style metadata, when present.
    public let metadata: PageMetadata?
    /// Its links.
    public let links: Links
    /// The page document as the server sent it: a server other than Spring keeps its
    /// figures in the page's own members.
    ///
    /// ```swift
    /// let all = manager.items(Order.self, from: url).stop { page in
    ///     page.document.state["isLast"]?.boolValue == true
    /// }
    /// ```
    public let document: HALResource
}
