import Foundation
import HalleyHAL

/// A collection resource's items, each with its includes merged, and the collection's own
/// state and links (paging metadata, `next`, `prev`).
///
/// ```swift
/// let collection = try await manager.resourceCollectionWithMetadata(from: URL(string: "https://api.example.com/orders")!)
/// collection.items.count
/// collection.metadata["total"]?.intValue   // a member of the collection document
/// collection.links.link(for: .next)?.href
/// ```
public struct ResourceCollection: Sendable {
    /// The items, in order.
    public let items: [JSONValue]
    /// The collection's attributes: every member but `_links` and `_embedded`, e.g. Spring's
    /// `page` object or another server's `count` and `total`.
    public let metadata: JSONObject
    /// The collection's links.
    public let links: Links
    /// The URL the collection came from.
    public let url: URL
    /// The collection document as the server sent it, `_links` and `_embedded` included.
    ///
    /// ```swift
    /// collection.document.embedded.rels   // e.g. ["item"]
    /// ```
    public let document: HALResource
}

extension ResourceManager {
    /// Fetches a collection resource and returns its items, each with the includes merged.
    ///
    /// Items come from `_embedded.item`, else `_links.item` (each fetched), else the only
    /// relation in `_embedded` (Spring Data REST names it after the entity); the key is
    /// ``CallOptions/collectionItemKey``. An empty collection gives `[]`.
    public func resourceCollection(
        from url: URL, includes: [Include] = [], options: CallOptions = CallOptions()
    ) async throws -> [JSONValue] {
        try await resourceCollectionWithMetadata(from: url, includes: includes, options: options).items
    }

    /// Like ``resourceCollection(from:includes:options:)`` and also returns the collection's
    /// own attributes (paging metadata) and links (`next`, `prev`, ...).
    public func resourceCollectionWithMetadata(
        from url: URL, includes: [Include] = [], options: CallOptions = CallOptions()
    ) async throws -> ResourceCollection {
        try await resourceCollectionWithMetadata(from: url, plan: plan(includes), options: options)
    }

    /// The collection call with an already compiled plan.
    public func resourceCollectionWithMetadata(
        from url: URL, plan: IncludePlan, options: CallOptions = CallOptions()
    ) async throws -> ResourceCollection {
        let loader = PageLoader(manager: self, plan: plan, options: options, fetchesLinkedItems: true)
        return try await loader.load(try loader.call(at: .url(url))).collection
    }
}
