import Foundation

extension ResourceStore {
    /// The stored state a request of `scope` reads at `url` when it is stale but within its
    /// response's `stale-while-revalidate` (RFC 5861, section 3): used at once while a
    /// revalidation runs.
    func revalidatable(_ url: URL, scope: StateScope, at now: ContinuousClock.Instant = .now) -> ResourceState? {
        storage.withLock { storage in
            storage.loadStored(url.absoluteString, scope: scope.credentials, now: now)
            guard let key = storage.key(of: url.absoluteString, scope: scope), let stored = storage.use(key),
                !stored.isInvalidated, storage.embeddedCopiesAreComplete || !stored.state.isEmbedded,
                let window = CacheControl(stored.state.headers["Cache-Control"]).staleWhileRevalidate,
                now < stored.freshUntil + window
            else { return nil }
            return storage.view(key, at: now)
        }
    }

    /// The last known state to serve when a refresh failed: any stored one when `anyAge`,
    /// else one within its response's `stale-if-error` (RFC 5861, section 4).
    func lastKnown(_ url: URL, scope: StateScope, anyAge: Bool, at now: ContinuousClock.Instant = .now)
        -> ResourceState?
    {
        storage.withLock { storage in
            storage.loadStored(url.absoluteString, scope: scope.credentials, now: now)
            guard let key = storage.key(of: url.absoluteString, scope: scope), let stored = storage.use(key) else {
                return nil
            }
            if !anyAge {
                guard let window = CacheControl(stored.state.headers["Cache-Control"]).staleIfError,
                    now < stored.freshUntil + window
                else { return nil }
            }
            return storage.view(key, at: now)
        }
    }

    /// The server said `404` or `410` to `url`: the states a request of `scope` selects there
    /// are removed, and their observers hear `deleted`.
    func removeGone(_ url: URL, scope: StateScope) {
        changing { storage, changes in
            storage.loadStored(url.absoluteString, scope: scope.credentials, now: .now)
            storage.removeGone(url.absoluteString, scope: scope, changes: &changes)
        }
    }
}
