import Foundation

extension StateStorage {
    /// Stores a document fetched from its own URL (or sent back by a write), seeds the
    /// embedded resources it carries, and records the events.
    ///
    /// - Returns: The state as the response brought it.
    @discardableResult
    mutating func storeFetched(
        _ document: HALResource, response: ResourceResponse, url: URL, key: StateKey, now: ContinuousClock.Instant,
        changes: inout StateChanges
    ) -> ResourceState {
        let freshness = Freshness(headers: response.headers, now: now, defaultFreshness: defaultFreshness)
        let items = Self.embeddedItems(of: document, parentURL: url)
        let state = ResourceState(
            url: url, resource: document, status: response.status, headers: response.headers,
            etag: response.headers["ETag"], lastModified: response.headers["Last-Modified"], isEmbedded: false,
            isStale: false, storedAt: Date())
        let cost = response.body.count + response.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        let stored = StoredState(
            state: state, freshness: freshness, cost: cost + Self.fixedCost,
            embeds: Set(items.map { $0.key }))
        let previous = states[key]
        put(stored, for: key, storable: freshness.isStorable)
        if let previous, !previous.isInvalidated, !previous.state.isEmbedded,
            previous.state.resource.json == document.json, previous.state.etag == state.etag
        {
            // The same representation again: nothing for observers.
        } else {
            changes.record(.updated(stored.current), for: key)
            announce(key, excluding: nil, changes: &changes)
        }
        for item in items where item.key != key.url {
            seed(item.resource, url: item.url, scope: key.scope, parent: key, freshness: freshness, changes: &changes)
        }
        return stored.current
    }

    /// What each state costs besides its bytes, so that many small states are bounded too.
    static let fixedCost = 256

    /// Stores an embedded copy, unless the slot holds a state fetched from the resource's own
    /// URL: that one is never replaced, and becomes stale when the copy contradicts it.
    private mutating func seed(
        _ resource: HALResource, url: URL, scope: [UInt8], parent: StateKey, freshness: Freshness,
        changes: inout StateChanges
    ) {
        let key = StateKey(scope: scope, url: url.absoluteString)
        let previous = states[key]
        if let previous, !previous.state.isEmbedded {
            if !previous.isInvalidated, Self.contradicts(resource.state, previous.state.resource.state) {
                states[key]?.isInvalidated = true
                changes.record(.stale, for: key)
            }
            return
        }
        let state = ResourceState(
            url: url, resource: resource, status: 200, headers: [:], etag: nil, lastModified: nil, isEmbedded: true,
            isStale: false, storedAt: Date())
        let stored = StoredState(
            state: state, freshness: freshness,
            cost: JSONValue.object(resource.json).serialized().count + Self.fixedCost,
            embeds: Set(Self.embeddedItems(of: resource, parentURL: url).map { $0.key }))
        put(stored, for: key, storable: freshness.isStorable)
        if let previous, !previous.isInvalidated, previous.state.resource.json == resource.json { return }
        changes.record(.updated(stored.current), for: key)
        announce(key, excluding: parent, changes: &changes)
    }

    /// Tells the documents that embed `key`'s resource that their item has a new state, and
    /// puts that state in their copy of it: a list shows the edited item as its own handle
    /// does. (The document's other members, freshness and validators stay as the server sent
    /// them.)
    mutating func announce(_ key: StateKey, excluding excluded: StateKey?, changes: inout StateChanges) {
        let item = states[key]?.state.resource.json
        for parent in embedders(of: key.url, in: key.scope) where parent != excluded && parent != key {
            guard var stored = states[parent], !changes.isUpdated(parent) else { continue }
            if let item, let rewritten = Self.replacing(key.url, with: item, in: stored.state) {
                let cost = JSONValue.object(rewritten.json).serialized().count + Self.fixedCost
                bytes += cost - stored.cost
                stored.replaceResource(rewritten, cost: cost)
                states[parent] = stored
            }
            changes.record(.updated(stored.current), for: parent)
        }
        // The rewritten documents may have grown past the bound.
        evict(keeping: key)
    }

    /// `state`'s document with every embedded copy of `url` (at any depth) replaced by `item`;
    /// `nil` when it holds none, or when the result does not read as HAL.
    static func replacing(_ url: String, with item: JSONObject, in state: ResourceState) -> HALResource? {
        var replaced = false
        func rewrite(_ object: JSONObject, base: URL) -> JSONObject {
            guard case .object(let embedded)? = object["_embedded"] else { return object }
            var entries: [(String, JSONValue)] = []
            for (rel, value) in embedded.members {
                switch value {
                case .object(let copy): entries.append((rel, .object(rewriteCopy(copy, base: base))))
                case .array(let copies):
                    entries.append(
                        (
                            rel,
                            .array(
                                copies.map {
                                    if case .object(let copy) = $0 {
                                        .object(rewriteCopy(copy, base: base))
                                    } else {
                                        $0
                                    }
                                })
                        ))
                default: entries.append((rel, value))
                }
            }
            var result = object
            result["_embedded"] = .object(JSONObject(entries))
            return result
        }
        func rewriteCopy(_ copy: JSONObject, base: URL) -> JSONObject {
            guard let href = copy["_links"]?["self"]?["href"]?.stringValue,
                let own = URL(string: href, relativeTo: base)?.absoluteURL
            else { return rewrite(copy, base: base) }
            if URLNormalization.normalized(own).absoluteString == url {
                replaced = true
                return item
            }
            return rewrite(copy, base: own)
        }
        let json = rewrite(state.resource.json, base: state.url)
        guard replaced else { return nil }
        return try? HALResource(json: .object(json), url: state.url)
    }

    /// Whether `copy` says something else than `fetched` in a member both have.
    static func contradicts(_ copy: JSONObject, _ fetched: JSONObject) -> Bool {
        copy.members.contains { member in
            guard let value = fetched[member.key] else { return false }
            return value != member.value
        }
    }

    /// The embedded resources of `document` (at any depth) that may be stored: those with a
    /// `self` link, resolved against their parent's URL, on their parent's origin. One
    /// without a `self` link stays in its document, and its own embedded resources are read
    /// against the nearest ancestor that has a URL.
    static func embeddedItems(of document: HALResource, parentURL: URL) -> [(
        key: String, url: URL, resource: HALResource
    )] {
        var items: [(key: String, url: URL, resource: HALResource)] = []
        func visit(_ resource: HALResource, parentURL: URL, depth: Int) {
            // Deep nesting is bounded by the parser; this bound keeps a hostile document cheap.
            guard depth < 64 else { return }
            for entry in resource.embedded.entries {
                for item in entry.resources {
                    // A resource's base is its `self` link resolved against its parent's base.
                    guard let selfLink = item.links.selfLink, !selfLink.isTemplated, let url = item.baseURL else {
                        visit(item, parentURL: parentURL, depth: depth + 1)
                        continue
                    }
                    // A copy of another origin's resource is that server's word about it.
                    guard Origin(url) == Origin(parentURL) else { continue }
                    let normalized = URLNormalization.normalized(url)
                    items.append((normalized.absoluteString, normalized, item))
                    visit(item, parentURL: normalized, depth: depth + 1)
                }
            }
        }
        visit(document, parentURL: parentURL, depth: 0)
        return items
    }
}
