import Foundation
import HalleyHAL

#if canImport(Network) && canImport(Darwin)
    import Network
#endif

/// A store's moments to ask again and to forget: the network coming back, the app becoming
/// active (wired to the system on Apple platforms), and the idle sweep that forgets the states
/// nobody observes or uses.
final class RefreshTriggers: Sendable {
    /// How long a state nobody observes or uses is kept (TanStack Query's `gcTime`).
    static let defaultIdleTime: Duration = .seconds(300)

    private struct Idle {
        var time = RefreshTriggers.defaultIdleTime
        var lastSweep: ContinuousClock.Instant?
        /// Each unobserved state's use stamp when first seen unused, and since when.
        var seen: [StateKey: (stamp: UInt64, since: ContinuousClock.Instant)] = [:]
    }

    private let connected = LockedValue<Bool?>(nil)
    private let idle = LockedValue(Idle())
    private let system = LockedValue<[Task<Void, Never>]>([])
    /// The clock's sweeps: a store that no longer changes still forgets what nobody uses.
    private let sweeper = LockedValue<Task<Void, Never>?>(nil)

    deinit {
        for task in system.get() { task.cancel() }
        sweeper.get()?.cancel()
    }

    /// Records the network's reachability; `true` when it just came back.
    func connectivity(_ isConnected: Bool) -> Bool {
        let was = connected.exchange(isConnected)
        return isConnected && was == false
    }

    var idleTime: Duration {
        get { idle.withLock { $0.time } }
        set { idle.withLock { $0.time = newValue } }
    }

    /// How often the idle states are swept: a quarter of the idle time, and never more often
    /// than ten times a second, whatever the idle time (zero included).
    private static func sweepPeriod(_ idleTime: Duration) -> Duration {
        max(idleTime / 4, .milliseconds(100))
    }

    /// Whether a sweep is due at `now`: every ``sweepPeriod(_:)``.
    func sweepIsDue(at now: ContinuousClock.Instant) -> Bool {
        idle.withLock { idle in
            let period = Self.sweepPeriod(idle.time)
            if let last = idle.lastSweep, now - last < period { return false }
            idle.lastSweep = now
            return true
        }
    }

    /// Forgets the states of `storage` that nobody observed (`observed` URLs), no edit shows
    /// over (`edited`) and nobody used for the idle time, as of `now`. A state is known unused
    /// from the first sweep that sees its use stamp unchanged, so it goes between one idle time
    /// and one idle time and a quarter after its last use.
    func sweep(
        _ storage: inout StateStorage, observed: Set<String>, edited: Set<String>, at now: ContinuousClock.Instant
    ) {
        idle.withLock { idle in
            var seen: [StateKey: (stamp: UInt64, since: ContinuousClock.Instant)] = [:]
            var idleKeys: [StateKey] = []
            for (key, stored) in storage.states where !observed.contains(key.url) && !edited.contains(key.url) {
                if let known = idle.seen[key], known.stamp == stored.lastUsed {
                    if now - known.since >= idle.time {
                        idleKeys.append(key)
                        continue
                    }
                    seen[key] = known
                } else {
                    seen[key] = (stored.lastUsed, now)
                }
            }
            idle.seen = seen
            // Memory forgets them; a durable store keeps them on disk, as when memory's byte
            // bound lets a state go.
            for key in idleKeys where storage.remove(key, fromDisk: false) != nil {
                storage.persistence?.evicted(key)
            }
        }
    }

    /// Sweeps `store`'s idle states every ``sweepPeriod(_:)`` by the clock (besides the sweeps
    /// its changes make), from now on: called when the store is made and when its idle time
    /// changes. The task holds the store weakly and ends with it.
    func scheduleSweeps(for store: ResourceStore) {
        let period = Self.sweepPeriod(idleTime)
        // Both weakly: the store's end ends this object, whose deinit cancels the sleep.
        let task = Task { [weak store, weak self] in
            while true {
                do { try await Task.sleep(for: period) } catch { return }
                guard let store, let self else { return }
                if self.sweepIsDue(at: .now) { store.evictIdle() }
            }
        }
        sweeper.exchange(task)?.cancel()
    }

    /// On Apple platforms: asks `store` to refresh its stale observed states when the app
    /// becomes active, and reports the system's network path to it. Each task holds the store
    /// weakly and ends with it.
    func start(for store: ResourceStore) {
        #if canImport(Darwin)
            var tasks: [Task<Void, Never>] = []
            // The notification names as strings: no UIKit, AppKit or WatchKit import in the library.
            for name in [
                "UIApplicationDidBecomeActiveNotification", "NSApplicationDidBecomeActiveNotification",
                "WKApplicationDidBecomeActiveNotification",
            ] {
                tasks.append(
                    Task { [weak store] in
                        for await _ in NotificationCenter.default.notifications(named: Notification.Name(name)) {
                            guard let store else { return }
                            _ = await store.refreshStale()
                        }
                    })
            }
            #if canImport(Network)
                tasks.append(
                    Task { [weak store] in
                        for await path in NWPathMonitor() {
                            guard let store else { return }
                            store.connectivityChanged(isConnected: path.status == .satisfied)
                        }
                    })
            #endif
            system.set(tasks)
        #endif
    }
}

extension ResourceStore {
    /// How long a state nobody observes, no edit shows over and nobody uses is kept, besides the
    /// byte bound (5 minutes by default, as TanStack Query's `gcTime`). An observed state is
    /// never forgotten this way.
    ///
    /// The store sweeps every quarter of the idle time (at most ten times a second), as its
    /// states change and by the clock while nothing changes.
    ///
    /// ```swift
    /// let store = ResourceStore()
    /// store.idleTime = .seconds(60)
    /// ```
    public var idleTime: Duration {
        get { triggers.idleTime }
        set {
            triggers.idleTime = newValue
            triggers.scheduleSweeps(for: self)
        }
    }

    /// Forgets the idle states as of `now` (the store does so as it changes and by the clock,
    /// every quarter of the idle time).
    func evictIdle(at now: ContinuousClock.Instant = .now) {
        let observed = Set(observedURLs())
        let edited = Set(pendingEdits.withLock { $0.edits.keys.map(\.url) })
        storage.withLock { triggers.sweep(&$0, observed: observed, edited: edited, at: now) }
    }
}
