import Foundation

extension StateStorage {
    /// Reads the states of `url` in `scope` from ``persistence`` the first time they are asked
    /// for (lazily: nothing is read when the store opens). States already in memory win.
    mutating func loadStored(_ url: String, scope: [UInt8], now: ContinuousClock.Instant) {
        guard let persistence else { return }
        for (key, stored) in persistence.load(url, scope: scope, now: now) where states[key] == nil {
            put(stored, for: key, storable: true, persist: false)
        }
    }

    /// ``freshResource(_:scope:at:)``, reading `url`'s stored states first when memory has
    /// no usable one: a state in memory wins over the file's, so a hit needs no look at
    /// ``persistence`` (perf: a traversal over held states asks for every resource;
    /// BENCHMARKS.md, "Why the hot paths look as they do").
    mutating func freshResourceLoadingStored(_ url: String, scope: StateScope, at now: ContinuousClock.Instant)
        -> HALResource?
    {
        if let resource = freshResource(url, scope: scope, at: now) { return resource }
        guard persistence != nil else { return nil }
        loadStored(url, scope: scope.credentials, now: now)
        return freshResource(url, scope: scope, at: now)
    }

    /// Forgets `scope`'s states (every scope's when `nil`); observers hear nothing.
    mutating func removeScope(_ scope: [UInt8]?) {
        let keys = states.keys.filter { scope == nil || $0.scope == scope }
        for key in keys { remove(key, fromDisk: false) }
    }

    /// Tells ``persistence`` what `changes` did to each state they name: flags set in place
    /// (an invalidation) reach the disk this way, as do states replaced without an event.
    func persist(_ changes: StateChanges) {
        guard let persistence else { return }
        for change in changes.ordered {
            if let stored = states[change.key] {
                persistence.stored(stored, at: change.key)
            } else {
                persistence.removed(change.key)
            }
        }
    }

    /// Removes the states a request of `scope` selects at `url` after the server said `404` or
    /// `410`: the resource is gone (for this scope), and its observers hear `deleted`.
    mutating func removeGone(_ url: String, scope: StateScope, changes: inout StateChanges) {
        for key in keys(of: url) where key.scope == scope.credentials {
            guard let removed = remove(key) else { continue }
            changes.record(.deleted, for: key, varyNames: removed.varyNames)
        }
    }
}
