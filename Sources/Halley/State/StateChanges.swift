import Foundation

/// The events one response causes, gathered while the store is locked and delivered after
/// every state of the response is stored: no observer ever sees half of a response applied.
///
/// One event per state: `deleted` wins over `updated`, which wins over `stale` (a state that
/// a response both invalidated and replaced was replaced, so observers never see `stale`
/// before the `updated` that follows it).
struct StateChanges: Sendable {
    private(set) var events: [StateKey: ResourceEvent] = [:]
    /// Keys in the order they first changed, so events go out in that order.
    private(set) var order: [StateKey] = []
    /// The `Vary` names of each changed state: which handles' requests select it.
    private(set) var varyNames: [StateKey: [String]] = [:]

    var isEmpty: Bool { events.isEmpty }

    mutating func record(_ event: ResourceEvent, for key: StateKey, varyNames names: [String]) {
        guard let existing = events[key] else {
            events[key] = event
            order.append(key)
            if !names.isEmpty { varyNames[key] = names }
            return
        }
        if Self.rank(event) >= Self.rank(existing) { events[key] = event }
    }

    private static func rank(_ event: ResourceEvent) -> Int {
        switch event {
        case .stale: return 0
        case .updated: return 1
        case .deleted: return 2
        }
    }

    /// The events in order.
    var ordered: [(key: StateKey, varyNames: [String], event: ResourceEvent)] {
        order.compactMap { key in events[key].map { (key, varyNames[key] ?? [], $0) } }
    }

    /// Whether `key` got a new state from this response.
    func isUpdated(_ key: StateKey) -> Bool {
        if case .updated? = events[key] { return true }
        return false
    }
}
