import Foundation
import HalleyHAL

/// Where a collection keeps its items: the one rule for collection calls, pages, to-many
/// relations that lead to a collection, and HAL-FORMS option lists.
///
/// The items are the item key's relation in `_embedded`, else its links (each fetched),
/// else the only relation in `_embedded` (Spring Data REST names it after the entity).
enum CollectionItems {
    /// Where the items are.
    enum Place: Equatable {
        /// In `_embedded`, under the item key.
        case embeddedByKey
        /// In `_links`, under the item key: each link is an item to fetch.
        case linked
        /// In the only relation of `_embedded`.
        case onlyEmbedded
        /// Nowhere: an empty collection.
        case none
        /// Not under the item key, and `_embedded` has several relations.
        case ambiguous
    }

    /// The rule itself, on what a collection has: whether `_embedded` and `_links` hold the
    /// item key, and how many relations `_embedded` holds.
    static func place(embedsKey: Bool, linksKey: Bool, embeddedRelations: Int) -> Place {
        if embedsKey { return .embeddedByKey }
        if linksKey { return .linked }
        switch embeddedRelations {
        case 0: return .none
        case 1: return .onlyEmbedded
        default: return .ambiguous
        }
    }

    /// Where `collection`'s items are.
    static func place(in collection: HALResource, key: LinkRelation) -> Place {
        place(
            embedsKey: collection.embedded.entry(for: key) != nil, linksKey: collection.links.contains(key),
            embeddedRelations: collection.embedded.entries.count)
    }

    /// Whether `resource` holds items under the item key: a single embedded object that does
    /// is read as a collection, not as one item.
    static func isCollection(_ resource: HALResource, key: LinkRelation) -> Bool {
        let place = place(in: resource, key: key)
        return place == .embeddedByKey || place == .linked
    }

    /// How many items `collection` holds, without producing them.
    static func count(in collection: HALResource, key: LinkRelation) -> Int {
        switch place(in: collection, key: key) {
        case .embeddedByKey: collection.embedded.entry(for: key)?.resources.count ?? 0
        case .linked: collection.links.linkCount(for: key) ?? 0
        case .onlyEmbedded: collection.embedded.entries[0].resources.count
        case .none, .ambiguous: 0
        }
    }
}

extension RelationResolver {
    /// What a to-one relation of a resource leads to.
    enum One {
        /// Nothing: the relation is not in the resource, or has no link.
        case missing
        /// An embedded resource, no request needed (`nil` when the relation embeds none).
        case embedded(HALResource?, entry: EmbeddedResources.Entry)
        /// A link to fetch.
        case link(Link)
    }

    /// What a to-many relation of a resource leads to.
    enum Many {
        /// Nothing: the relation is not in the resource.
        case missing
        /// Embedded resources, the items themselves.
        case embedded(EmbeddedResources.Entry)
        /// One embedded resource that is itself a collection: its items.
        case embeddedCollection(HALResource, entry: EmbeddedResources.Entry)
        /// Links, each an item to fetch.
        case links([Link])
        /// One link to a collection resource: fetch it, then its items.
        case collection(Link)
    }

    /// What one node of an include plan leads to.
    enum Step {
        case one(One)
        case many(Many)
    }

    /// The one decision for one node of a plan, made without suspending: embedded, fetched,
    /// a collection, or missing. The traverser, follow chains and actions all decide here.
    ///
    /// - Throws: ``HalleyError`` as ``find(_:named:in:includePath:)`` and
    ///   ``single(_:rel:in:includePath:for:)`` do.
    func step(for node: IncludePlan.Node, in resource: HALResource) throws(HalleyError) -> Step {
        if node.segment.isToMany {
            return .many(try many(node.segment.rel, named: node.segment.linkName, in: resource, includePath: node.path))
        }
        return .one(try one(node.segment.rel, named: node.segment.linkName, in: resource, includePath: node.path))
    }

    /// The to-one relation `rel` (the link named `name`, when given) of `resource`.
    ///
    /// - Throws: ``HalleyError/Code/ambiguousRelation`` when it has several links or embedded
    ///   resources, naming the fix `selection` has; as ``find(_:named:in:includePath:)``.
    func one(
        _ rel: LinkRelation, named name: String?, in resource: HALResource, includePath: String?,
        for selection: Selection = .include
    ) throws(HalleyError) -> One {
        switch try find(rel, named: name, in: resource, includePath: includePath) {
        case .missing:
            return .missing
        case .embedded(let entry):
            return .embedded(
                try single(entry, in: resource, includePath: includePath, for: selection), entry: entry)
        case .links(let links, _):
            guard let link = try single(links, rel: rel, in: resource, includePath: includePath, for: selection)
            else { return .missing }
            return .link(link)
        }
    }

    /// The to-many relation `rel` (the links named `name`, when given) of `resource`.
    ///
    /// - Throws: As ``find(_:named:in:includePath:)``.
    func many(_ rel: LinkRelation, named name: String?, in resource: HALResource, includePath: String?)
        throws(HalleyError) -> Many
    {
        switch try find(rel, named: name, in: resource, includePath: includePath) {
        case .missing:
            return .missing
        case .embedded(let entry):
            // A single embedded object with items of its own is a collection; otherwise one item.
            if !entry.isArray, let single = entry.resources.first,
                CollectionItems.isCollection(single, key: itemKey)
            {
                return .embeddedCollection(single, entry: entry)
            }
            return .embedded(entry)
        case .links(let links, let isArray):
            // One link (not an array, not picked by name) points at a collection resource.
            if isArray || name != nil { return .links(links) }
            guard let link = links.first else { return .links([]) }
            return .collection(link)
        }
    }
}
