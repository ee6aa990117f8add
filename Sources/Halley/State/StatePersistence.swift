import Foundation

/// Where the store's states live beyond memory: what ``StateStorage`` tells it and asks it,
/// under the storage's lock. It is told only of states a server sent (fetched, seeded from an
/// embedding document, confirmed by a `304`): a state no server sent never reaches it.
protocol StatePersistence: AnyObject, Sendable {
    /// The states of `url` in `scope` it holds, the first time they are asked for since they
    /// were last in memory; empty after that (memory has them, or nothing does).
    func load(_ url: String, scope: [UInt8], now: ContinuousClock.Instant) -> [(key: StateKey, stored: StoredState)]
    /// `stored` is the state of `key` now.
    func stored(_ stored: StoredState, at key: StateKey)
    /// `key` has no state any more (replaced under another key, deleted, gone).
    func removed(_ key: StateKey)
    /// `key`'s state left memory to fit the bound: persistence keeps it.
    func evicted(_ key: StateKey)
}
