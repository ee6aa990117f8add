import Foundation
import HalleyHAL

/// The optimistic edits shown above the stored states (see ``ExpectedState``), read and
/// changed only under the store's storage lock (taken first).
///
/// An overlay, never part of ``StateStorage/states``: what is stored stays what a server
/// sent, so a durable store never sees an edit and no edit's body is sent as a validator.
/// Each edit is pending while its write is in flight. When the write succeeded without
/// sending the new state (a `204`), the edit is settled: shown, stale and no longer pending,
/// over the state it was made on, until a newer state of the resource is stored (the refresh
/// the staleness asks for), so a screen does not flick back to the old value meanwhile.
struct PendingEdits: Sendable {
    /// Whose resource an edit changes: one credential scope's state of one normalised URL
    /// (every variant of it).
    struct Target: Sendable, Hashable {
        let scope: [UInt8]
        let url: String
    }

    struct Edit: Sendable {
        let id: UInt64
        let change: @Sendable (JSONObject) -> JSONObject
        /// `nil` while the write is in flight; once settled, the newest ``StoredState/sequence``
        /// of the resource then: a state stored after it replaces the edit.
        var settledOver: UInt64?
    }

    /// Each target's edits in the order they were made: they apply in that order.
    private(set) var edits: [Target: [Edit]] = [:]
    private var targets: [UInt64: Target] = [:]
    private var lastID: UInt64 = 0

    var isEmpty: Bool { edits.isEmpty }

    mutating func add(_ change: @escaping @Sendable (JSONObject) -> JSONObject, to target: Target) -> UInt64 {
        lastID += 1
        edits[target, default: []].append(Edit(id: lastID, change: change))
        targets[lastID] = target
        return lastID
    }

    func target(of id: UInt64) -> Target? { targets[id] }

    /// Whether edit `id` waits for its write's answer.
    func isPending(_ id: UInt64) -> Bool {
        guard let target = targets[id] else { return false }
        return edits[target]?.contains { $0.id == id && $0.settledOver == nil } == true
    }

    /// Forgets edit `id`; its target, or `nil` when it was gone.
    @discardableResult
    mutating func remove(_ id: UInt64) -> Target? {
        guard let target = targets.removeValue(forKey: id) else { return nil }
        edits[target]?.removeAll { $0.id == id }
        if edits[target]?.isEmpty == true { edits[target] = nil }
        return target
    }

    /// Marks edit `id` accepted by the server, over the state stored with `sequence`.
    mutating func settle(_ id: UInt64, over sequence: UInt64) {
        guard let target = targets[id], let index = edits[target]?.firstIndex(where: { $0.id == id }) else { return }
        edits[target]?[index].settledOver = sequence
    }

    /// Drops the settled edits whose resource has a newer state, or none any more.
    /// `newest` is the newest stored sequence of a target's resource.
    mutating func prune(_ newest: (Target) -> UInt64?) {
        for (target, list) in edits where list.contains(where: { $0.settledOver != nil }) {
            let latest = newest(target)
            for edit in list {
                guard let over = edit.settledOver else { continue }
                if let latest, latest <= over { continue }
                remove(edit.id)
            }
        }
    }

    /// The edits shown over `target`'s state stored with `sequence`, in order.
    func shown(_ target: Target, over sequence: UInt64?) -> [Edit] {
        guard let list = edits[target] else { return [] }
        return list.filter { edit in
            guard let over = edit.settledOver else { return true }
            return (sequence ?? 0) <= over
        }
    }

    /// Whether any edit of `scope` targets one of `urls`.
    func touches(_ urls: Set<String>, scope: [UInt8]) -> Bool {
        edits.keys.contains { $0.scope == scope && urls.contains($0.url) }
    }
}

extension StateStorage {
    /// The newest stored sequence of `url` in `scope` (any variant, fetched or embedded).
    func newestSequence(of url: String, scope: [UInt8]) -> UInt64? {
        keys(of: url).lazy.filter { $0.scope == scope }.compactMap { self.states[$0]?.sequence }.max()
    }

    /// `state` (as read of `key`) with the edits shown over it: its own, in order, and for a
    /// collection those of the items it embeds. Such a view carries no validators (no server
    /// sent that body); `state` itself when no edit applies.
    func withEdits(_ state: ResourceState, key: StateKey, edits: PendingEdits) -> ResourceState {
        guard !edits.isEmpty else { return state }
        let stored = states[key]
        var json = state.resource.json
        var changed = false
        var pending = false
        for edit in edits.shown(.init(scope: key.scope, url: key.url), over: stored?.sequence) {
            json = edit.change(json)
            changed = true
            pending = pending || edit.settledOver == nil
        }
        if let stored, !stored.items.isEmpty, edits.touches(stored.items, scope: key.scope),
            case .object(var embedded)? = json["_embedded"], let listed = embedded[Self.itemRelation]
        {
            func edited(_ value: JSONValue) -> JSONValue {
                guard case .object(var item) = value, let href = item["_links"]?["self"]?["href"]?.stringValue,
                    let own = URLResolution.resolve(href, against: state.url)
                else { return value }
                let url = URLNormalization.normalized(own).absoluteString
                guard stored.items.contains(url) else { return value }
                let shown = edits.shown(
                    .init(scope: key.scope, url: url), over: newestSequence(of: url, scope: key.scope))
                guard !shown.isEmpty else { return value }
                for edit in shown {
                    item = edit.change(item)
                    pending = pending || edit.settledOver == nil
                }
                changed = true
                return .object(item)
            }
            switch listed {
            case .array(let items): embedded[Self.itemRelation] = .array(items.map(edited))
            default: embedded[Self.itemRelation] = edited(listed)
            }
            json["_embedded"] = .object(embedded)
        }
        guard changed, let resource = try? HALResource(json: .object(json), url: state.url) else { return state }
        var headers = HeaderFields()
        for field in state.headers where !["etag", "last-modified"].contains(field.name.lowercased()) {
            headers[field.name] = field.value
        }
        var view = ResourceState(
            url: state.url, resource: resource, status: state.status, headers: headers, etag: nil, lastModified: nil,
            isEmbedded: state.isEmbedded, isStale: state.isStale, storedAt: state.storedAt)
        view.isPending = pending
        return view
    }

    /// Records an `updated` of every state an edit of `url` in `scope` shows in: the
    /// resource's own (every variant) and the collections that list it. The store lays the
    /// edits over them on delivery.
    mutating func recordEdited(_ url: String, scope: [UInt8], changes: inout StateChanges) {
        for key in keys(of: url) where key.scope == scope {
            guard let state = current(key), let stored = states[key] else { continue }
            changes.record(.updated(state), for: key, varyNames: stored.varyNames)
        }
        for parent in dependents[url] ?? [] where parent.scope == scope {
            guard let stored = states[parent], stored.items.contains(url), let view = current(parent) else { continue }
            changes.record(.updated(view), for: parent, varyNames: stored.varyNames)
        }
    }
}
