import Foundation
import HalleyHAL
import HalleyTransport

extension StateStorage {
    /// Stores a document fetched from its own URL (or sent back by a write) for a request of
    /// `scope`, seeds the embedded resources it carries, and records the events.
    ///
    /// - Parameter isWrite: Whether a write's answer brought it: the resource changed, so every
    ///   document that embeds a copy of it is out of date.
    /// - Returns: The state as the response brought it.
    @discardableResult
    mutating func storeFetched(
        _ document: HALResource, response: ResourceResponse, url: URL, scope: StateScope, isWrite: Bool = false,
        now: ContinuousClock.Instant, changes: inout StateChanges
    ) -> ResourceState {
        let freshness = Freshness(headers: response.headers, now: now, defaultFreshness: defaultFreshness)
        let varyNames = SelectingHeaders.varyNames(response.headers)
        let key = Self.key(of: url.absoluteString, scope: scope, varyNames: varyNames)
        let carried = Self.carried(by: document, at: url)
        let found = carried.embedded
        let state = ResourceState(
            url: url, resource: document, status: response.status, headers: response.headers,
            etag: response.headers["ETag"], lastModified: response.headers["Last-Modified"], isEmbedded: false,
            isStale: false, storedAt: Date())
        let cost = response.body.count + response.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        let stored = StoredState(
            state: state, freshness: freshness, cost: cost + Self.fixedCost, embeds: Set(found.map { $0.key }),
            items: carried.items, varyNames: varyNames)
        let previous = self.key(of: key.url, scope: scope).flatMap { states[$0] }
        removeSelected(key.url, scope: scope)
        put(stored, for: key, storable: freshness.isStorable)
        var read = state
        read.isStale = false
        if let previous, !previous.isInvalidated, !previous.state.isEmbedded,
            previous.state.resource.json == document.json, previous.state.etag == state.etag
        {
            // The same representation again: nothing for observers.
        } else {
            changes.record(.updated(current(key) ?? read), for: key, varyNames: varyNames)
            announce(
                key, state: document, previous: previous, isOwn: true, isWrite: isWrite, excluding: nil,
                changes: &changes)
        }
        for item in found where item.key != key.url {
            guard let itemURL = URL(string: item.key) else { continue }
            seed(
                item.resource, url: itemURL, scope: scope, parent: key, varyNames: varyNames, freshness: freshness,
                changes: &changes)
        }
        return current(key) ?? read
    }

    /// What each state costs besides its bytes, so that many small states are bounded too.
    static let fixedCost = 256

    /// Stores an embedded copy, unless a request of its parent's scope selects a state fetched
    /// from the resource's own URL: that one is never replaced, and becomes stale when the copy
    /// contradicts it.
    private mutating func seed(
        _ resource: HALResource, url: URL, scope: StateScope, parent: StateKey, varyNames: [String],
        freshness: Freshness, changes: inout StateChanges
    ) {
        let previousKey = key(of: url.absoluteString, scope: scope)
        let previous = previousKey.flatMap { states[$0] }
        if let previousKey, let previous, !previous.state.isEmbedded {
            if !previous.isInvalidated, Self.contradicts(resource.state, previous.state.resource.state) {
                states[previousKey]?.isInvalidated = true
                changes.record(.stale, for: previousKey, varyNames: previous.varyNames)
                spread(from: previousKey, excluding: parent, changes: &changes)
            }
            return
        }
        let key = Self.key(of: url.absoluteString, scope: scope, varyNames: varyNames)
        let state = ResourceState(
            url: url, resource: resource, status: 200, headers: [:], etag: nil, lastModified: nil, isEmbedded: true,
            isStale: false, storedAt: Date())
        let carried = Self.carried(by: resource, at: url)
        let stored = StoredState(
            state: state, freshness: freshness,
            cost: JSONValue.object(resource.json).serialized().count + Self.fixedCost,
            embeds: Set(carried.embedded.map { $0.key }), items: carried.items, varyNames: varyNames)
        if let previousKey { remove(previousKey) }
        put(stored, for: key, storable: freshness.isStorable)
        if let previous, !previous.isInvalidated, previous.state.resource.json == resource.json { return }
        changes.record(.updated(current(key) ?? state), for: key, varyNames: varyNames)
        announce(
            key, state: resource, previous: previous, isOwn: false, isWrite: false, excluding: parent,
            changes: &changes)
    }

    /// Tells the states that depend on `key`'s resource that it has a new state (`document`):
    ///
    /// - a collection that lists it as an item, when the new state is the resource's own: it
    ///   gets `updated`, and reads of it show the item's new state in place of its copy;
    /// - a document that embeds a copy of it which is now out of date (the server changed the
    ///   resource, or the new state contradicts the copy): it goes stale, and so does whatever
    ///   depends on it, once each.
    ///
    /// Nothing stored is rewritten: a stored state stays what a server sent.
    mutating func announce(
        _ key: StateKey, state document: HALResource, previous: StoredState?, isOwn: Bool, isWrite: Bool,
        excluding excluded: StateKey?, changes: inout StateChanges
    ) {
        // The server changed it since its last own state: every copy of it is out of date.
        let changed =
            isWrite
            || (isOwn && previous.map { !$0.state.isEmbedded && $0.state.resource.json != document.json } == true)
        var outdated: [StateKey] = []
        for parent in dependents[key.url] ?? [] where parent.scope == key.scope && parent != excluded && parent != key {
            guard let stored = states[parent], !changes.isUpdated(parent) || stored.items.contains(key.url) else {
                continue
            }
            if stored.items.contains(key.url) {
                guard isOwn else { continue }
                states[parent]?.hasNewerItems = true
                if let view = current(parent) {
                    changes.record(.updated(view), for: parent, varyNames: stored.varyNames)
                }
                continue
            }
            guard stored.embeds.contains(key.url), !stored.isInvalidated else { continue }
            let copy = Self.carried(by: stored.state.resource, at: stored.state.url).embedded
                .first { $0.key == key.url }?.resource
            if changed || copy.map({ Self.contradicts($0.state, document.state) }) == true {
                outdated.append(parent)
            }
        }
        for parent in outdated {
            guard let stored = states[parent], !stored.isInvalidated else { continue }
            states[parent]?.isInvalidated = true
            changes.record(.stale, for: parent, varyNames: stored.varyNames)
            spread(from: parent, excluding: nil, changes: &changes)
        }
    }

    /// Whether `copy` says something else than `fetched` in a member both have.
    static func contradicts(_ copy: JSONObject, _ fetched: JSONObject) -> Bool {
        copy.members.contains { member in
            guard let value = fetched[member.key] else { return false }
            return value != member.value
        }
    }

    /// What a state of `document` at `url` keeps of the resources it carries, found in one
    /// walk of its `_embedded`:
    ///
    /// - `embedded`: the embedded resources (at any depth) that may be stored, each with the
    ///   key it is stored under: those with a `self` link, resolved against their parent's
    ///   URL, on their parent's origin. One without a `self` link stays in its document, and
    ///   its own embedded resources are read against the nearest ancestor that has a URL.
    /// - `items`: the normalised URLs the document lists in its `item` relation, embedded (by
    ///   their `self` links) or linked, on its own origin.
    static func carried(by document: HALResource, at url: URL) -> (
        embedded: [(key: String, resource: HALResource)], items: Set<String>
    ) {
        var embedded: [(key: String, resource: HALResource)] = []
        var items: Set<String> = []
        let root = KeyParent(url.absoluteString)
        let listed = document.embedded.entry(for: LinkRelation(itemRelation))?.rel
        func visit(_ resource: HALResource, parent: KeyParent, depth: Int) {
            // Deep nesting is bounded by the parser; this bound keeps a hostile document cheap.
            guard depth < 64 else { return }
            for entry in resource.embedded.entries {
                let lists = depth == 0 && entry.rel == listed
                for item in entry.resources {
                    // A resource's base is its `self` link resolved against its parent's base.
                    guard let selfLink = item.links.selfLink, !selfLink.isTemplated, let location = item.baseLocation
                    else {
                        visit(item, parent: parent, depth: depth + 1)
                        continue
                    }
                    guard let key = storableKey(location, under: parent) else { continue }
                    embedded.append((key.text, item))
                    if lists { items.insert(key.text) }
                    visit(item, parent: key, depth: depth + 1)
                }
            }
        }
        visit(document, parent: root, depth: 0)
        for link in document.links[LinkRelation(itemRelation)] where !link.isTemplated {
            guard let target = document.url(for: link), let key = storableKey(LazyURL(target), under: root)
            else { continue }
            items.insert(key.text)
        }
        return (embedded, items)
    }

    /// A URL's text as the keys of the resources it embeds or lists are checked against it.
    struct KeyParent {
        let text: String
        /// Whether ``text`` is plainly in normal form (``URLNormalization/isNormal(_:)``).
        let isNormal: Bool

        init(_ text: String, isNormal: Bool? = nil) {
            self.text = text
            self.isNormal = isNormal ?? URLNormalization.isNormal(text)
        }
    }

    /// The key a resource at `location` is stored under (its URL in normal form, as the parent
    /// its own embedded resources are checked against) when it is on `parent`'s origin; `nil`
    /// on another origin: a copy of another origin's resource is that server's word about it.
    ///
    /// perf: text in plainly normal form on both sides is compared as bytes, with no `URL` made
    /// (reading a stored collection parsed two URLs per item; BENCHMARKS.md, "Why the hot paths
    /// look as they do").
    static func storableKey(_ location: LazyURL, under parent: KeyParent) -> KeyParent? {
        let text = location.text
        if parent.isNormal, URLNormalization.isNormal(text) {
            return URLNormalization.haveOneOrigin(normal: text, parent.text) ? KeyParent(text, isNormal: true) : nil
        }
        let url = location.url
        guard let parentURL = URL(string: parent.text), Origin(url) == Origin(parentURL) else { return nil }
        return KeyParent(URLNormalization.normalized(url).absoluteString)
    }
}
