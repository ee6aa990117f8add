import Foundation

/// What one ``ResourceStore/refreshStale()`` asked for, and what failed.
///
/// ```swift
/// let summary = await store.refreshStale()
/// print(summary.refreshed.count, "asked again;", summary.failed.count, "kept stale")
/// ```
public struct StaleRefresh: Sendable {
    /// The URLs asked for again (conditionally when their states have validators).
    public let refreshed: [URL]
    /// The URLs whose refresh failed, with why; their stale states stay (stale over nothing).
    public let failed: [URL: any Error]
}

extension ResourceStore {
    /// Asks the server again for every stale state someone observes (a ``ResourceModel``, a
    /// ``ResourceListModel``, a loop over ``ResourceHandle/events``), once per URL, and
    /// conditionally when the state has validators: what an app does when it returns to the
    /// foreground. An embedded copy is asked for through the stale document it came from when
    /// that document is asked for too. States nobody observes are left alone.
    ///
    /// ```swift
    /// @MainActor func sceneBecameActive(_ store: ResourceStore) async {
    ///     _ = await store.refreshStale()
    /// }
    /// ```
    ///
    /// On Apple platforms the store calls it itself when the app becomes active; on Linux the
    /// caller does. A refresh that fails (after the pipeline's retries) keeps the stale state.
    @discardableResult
    public func refreshStale() async -> StaleRefresh {
        let handles = staleObserved()
        let results = await withTaskGroup(of: (URL, (any Error)?).self) { group in
            for handle in handles {
                group.addTask {
                    do {
                        _ = try await handle.refreshShared()
                        return (handle.url, nil)
                    } catch {
                        return (handle.url, error)
                    }
                }
            }
            var results: [(URL, (any Error)?)] = []
            for await result in group { results.append(result) }
            return results
        }
        var failed: [URL: any Error] = [:]
        for (url, error) in results { if let error { failed[url] = error } }
        return StaleRefresh(refreshed: results.map(\.0), failed: failed)
    }

    /// Tells the store whether the network is reachable: when it comes back after being lost,
    /// the stale states someone observes are asked for again (``refreshStale()``).
    ///
    /// ```swift
    /// let store = ResourceStore()
    /// store.connectivityChanged(isConnected: false)
    /// store.connectivityChanged(isConnected: true)  // asks again for what went stale meanwhile
    /// ```
    ///
    /// On Apple platforms the store follows the system's path monitor itself; on Linux the
    /// caller reports what it knows.
    public func connectivityChanged(isConnected: Bool) {
        guard triggers.connectivity(isConnected) else { return }
        Task { await self.refreshStale() }
    }

    /// The handles of the stale states observed now, one per URL, the embedded copies that a
    /// stale document being asked for carries left out.
    func staleObserved(at now: ContinuousClock.Instant = .now) -> [ResourceHandle] {
        // perf: one pass over the observed URLs under each lock, no copy of the observers and no
        // array per URL: a foreground with nothing stale costs a lookup per observed URL
        // (BENCHMARKS.md, "Live screens").
        let observed = observedURLs()
        guard !observed.isEmpty else { return [] }
        let (stale, carried) = storage.withLock { storage -> ([(url: String, isEmbedded: Bool)], Set<String>) in
            var stale: [(url: String, isEmbedded: Bool)] = []
            var carried: Set<String> = []
            for url in observed {
                guard let state = storage.firstState(of: url, where: { $0.isStale(at: now) }) else { continue }
                stale.append((url, state.state.isEmbedded))
                guard !state.state.isEmbedded else { continue }
                storage.forEachState(of: url) { stored in
                    carried.formUnion(stored.embeds)
                    carried.formUnion(stored.items)
                }
            }
            return (stale, carried)
        }
        guard !stale.isEmpty else { return [] }
        return stale.compactMap { entry in
            guard !entry.isEmbedded || !carried.contains(entry.url) else { return nil }
            return observer(of: entry.url)?.refresher(for: entry.url)
        }
    }
}
