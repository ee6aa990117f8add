import Foundation
import HalleyHAL
import HalleyTransport

extension StateStorage {
    /// What a write's request said about the answer it wants and the state it acted on.
    struct WriteRequest {
        /// The request's normalised URL.
        let url: URL
        let scope: StateScope
        /// It carried `If-Match`.
        let sentIfMatch: Bool
        /// It carried `Prefer: return=representation` (RFC 7240, section 4.2).
        let preferredRepresentation: Bool
    }

    /// Applies the answer to an unsafe request (the one rule of ``ResponseInvalidation``, then
    /// the store's own: new states, deletion, `inv-by` links and embedding documents, a failed
    /// `If-Match`).
    mutating func applyWrite(
        _ invalidation: ResponseInvalidation, response: ResourceResponse, request: WriteRequest,
        parsing: HALParsingOptions, now: ContinuousClock.Instant, changes: inout StateChanges
    ) {
        let target = request.url.absoluteString
        guard invalidation.succeeded else {
            // The resource changed since its ETag was read: for everyone.
            if response.status == 412, request.sentIfMatch {
                invalidate([target], keeping: [], scope: request.scope, changes: &changes)
            }
            return
        }
        let contentLocation = invalidation.contentLocation.map(URLNormalization.normalized)
        var newStates: [(url: URL, document: HALResource)] = []
        func newState(at url: URL) {
            guard !response.body.isEmpty, !newStates.contains(where: { $0.url == url }),
                let document = try? HALResource(response: response, options: parsing)
            else { return }
            newStates.append((url, document))
        }
        // RFC 9110, 8.7: a Content-Location equal to the target means the body is its new state.
        if invalidation.method != .delete, let contentLocation, contentLocation.absoluteString == target {
            newState(at: request.url)
        }
        // RFC 7240, 4.2: the server applied our `return=representation`, so the body is the
        // target's current representation.
        if invalidation.method == .put || invalidation.method == .patch, request.preferredRepresentation,
            Self.appliedRepresentation(response.headers)
        {
            newState(at: request.url)
        }
        if response.status == 201, let contentLocation,
            let location = invalidation.location.map(URLNormalization.normalized), location == contentLocation
        {
            newState(at: location)
        }
        if invalidation.method == .delete {
            for deleted in keys(of: target) {
                let removed = remove(deleted)
                changes.record(.deleted, for: deleted, varyNames: removed?.varyNames ?? [])
            }
        }
        invalidate(
            invalidation.invalidated.map { URLNormalization.normalized($0).absoluteString },
            keeping: Set(newStates.map(\.url.absoluteString)), scope: request.scope, changes: &changes)
        for new in newStates {
            storeFetched(
                new.document, response: response, url: new.url, scope: request.scope, isWrite: true, now: now,
                changes: &changes)
        }
    }

    /// Whether `headers` say `Preference-Applied: return=representation`.
    static func appliedRepresentation(_ headers: HeaderFields) -> Bool {
        headers.contains { field in
            field.name.lowercased() == "preference-applied"
                && field.value.split(separator: ",").contains {
                    $0.trimmingCharacters(in: .whitespaces).lowercased() == "return=representation"
                }
        }
    }

    /// Marks every scope's state of each of `urls` stale, except the states of `kept` that a
    /// request of `scope` selects (this response's new states, stored next), and,
    /// transitively, the states that depend on a stale one (in the same scope). Each state is
    /// visited once, so cycles end.
    mutating func invalidate(
        _ urls: [String], keeping kept: Set<String>, scope: StateScope, changes: inout StateChanges
    ) {
        var queue: [StateKey] = []
        for url in urls {
            queue.append(contentsOf: keys(of: url))
            // The documents of the writer's scope that depend on a URL with a new state hear of
            // it when it is stored (see ``announce(_:state:previous:isOwn:isWrite:excluding:changes:)``),
            // unless they name it in an `inv-by` link; the rest are stale now.
            let replaced = kept.contains(url)
            // A URL stored in no scope still spreads: documents may embed it or be invalidated by it.
            for dependent in dependents[url] ?? [] {
                if replaced, dependent.scope == scope.credentials,
                    states[dependent]?.invalidatedBy.contains(url) != true
                {
                    continue
                }
                queue.append(dependent)
            }
        }
        var visited: Set<StateKey> = []
        while let key = queue.popLast() {
            guard visited.insert(key).inserted else { continue }
            if let stored = states[key] {
                let isKept =
                    key.scope == scope.credentials && kept.contains(key.url)
                    && scope.headers.variant(for: stored.varyNames) == key.variant
                if isKept { continue }
                if !stored.isInvalidated {
                    states[key]?.isInvalidated = true
                    changes.record(.stale, for: key, varyNames: stored.varyNames)
                }
            }
            for dependent in dependents[key.url] ?? [] where dependent.scope == key.scope { queue.append(dependent) }
        }
    }

    /// Marks stale, once each, every state that depends on `key` (which just went stale), in
    /// its scope, and what depends on those: embedding documents, collections listing it,
    /// `inv-by` links.
    mutating func spread(from key: StateKey, excluding excluded: StateKey?, changes: inout StateChanges) {
        var visited: Set<StateKey> = [key]
        if let excluded { visited.insert(excluded) }
        var queue = Array(dependents[key.url] ?? []).filter { $0.scope == key.scope }
        while let next = queue.popLast() {
            guard visited.insert(next).inserted, let stored = states[next] else { continue }
            if !stored.isInvalidated {
                states[next]?.isInvalidated = true
                changes.record(.stale, for: next, varyNames: stored.varyNames)
            }
            queue.append(contentsOf: (dependents[next.url] ?? []).filter { $0.scope == next.scope })
        }
    }
}
