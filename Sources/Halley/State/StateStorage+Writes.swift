import Foundation

extension StateStorage {
    /// Applies the answer to an unsafe request sent with `key`'s credentials (the one rule of
    /// ``ResponseInvalidation``, then the store's own: new states, deletion, `inv-by` links and
    /// embedding documents, a failed `If-Match`).
    mutating func applyWrite(
        _ invalidation: ResponseInvalidation, response: ResourceResponse, key: StateKey, sentIfMatch: Bool,
        parsing: HALParsingOptions, now: ContinuousClock.Instant, changes: inout StateChanges
    ) {
        guard invalidation.succeeded else {
            // The resource changed since its ETag was read: for everyone.
            if response.status == 412, sentIfMatch { invalidate([key.url], keeping: [], changes: &changes) }
            return
        }
        let contentLocation = invalidation.contentLocation.map(URLNormalization.normalized)
        var newStates: [(url: URL, key: StateKey, document: HALResource)] = []
        func newState(at url: URL) {
            guard !response.body.isEmpty, let document = try? HALResource(response: response, options: parsing)
            else { return }
            newStates.append((url, StateKey(scope: key.scope, url: url.absoluteString), document))
        }
        // RFC 9110, 8.7: a Content-Location equal to the target means the body is its new state.
        if invalidation.method != .delete, let contentLocation, contentLocation.absoluteString == key.url {
            newState(at: contentLocation)
        }
        if response.status == 201, let contentLocation,
            let location = invalidation.location.map(URLNormalization.normalized), location == contentLocation
        {
            newState(at: location)
        }
        let kept = Set(newStates.map(\.key))
        if invalidation.method == .delete {
            for deleted in keys(of: key.url) {
                remove(deleted)
                changes.record(.deleted, for: deleted)
            }
        }
        invalidate(
            invalidation.invalidated.map { URLNormalization.normalized($0).absoluteString }, keeping: kept,
            changes: &changes)
        for new in newStates {
            storeFetched(new.document, response: response, url: new.url, key: new.key, now: now, changes: &changes)
        }
    }

    /// Marks every scope's state of each of `urls` stale, except `kept` (the new states of
    /// this response), and, transitively, the states that embed a stale one or name it in an
    /// `inv-by` link (in the same scope). Each state is visited once, so cycles end.
    mutating func invalidate(_ urls: [String], keeping kept: Set<StateKey>, changes: inout StateChanges) {
        var visited: Set<StateKey> = []
        var queue: [StateKey] = []
        for url in urls {
            queue.append(contentsOf: keys(of: url))
            // The writer's new state of `url`: the documents of its scope that embed it hear
            // `updated` (see ``announce(_:excluding:changes:)``); those it invalidates are stale.
            let replaced = kept.first { $0.url == url }
            // A URL stored in no scope still spreads: documents may embed it or be invalidated by it.
            for dependent in dependents[url] ?? [] {
                if let replaced, dependent.scope == replaced.scope,
                    states[dependent]?.invalidatedBy.contains(url) != true
                {
                    continue
                }
                queue.append(dependent)
            }
        }
        spread(&queue, visited: &visited, keeping: kept, changes: &changes)
    }

    private mutating func spread(
        _ queue: inout [StateKey], visited: inout Set<StateKey>, keeping kept: Set<StateKey>,
        changes: inout StateChanges
    ) {
        while let key = queue.popLast() {
            guard visited.insert(key).inserted, !kept.contains(key) else { continue }
            if let stored = states[key], !stored.isInvalidated {
                states[key]?.isInvalidated = true
                changes.record(.stale, for: key)
            }
            for dependent in dependents[key.url] ?? [] where dependent.scope == key.scope {
                queue.append(dependent)
            }
        }
    }
}
