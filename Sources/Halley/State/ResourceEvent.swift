import Foundation

/// A change of one resource's state, delivered by ``ResourceHandle/events`` once every state
/// the same response changed is stored.
///
/// ```swift
/// for await event in order.events {
///     if case .updated(let state) = event { print(state.resource.state) }
/// }
/// ```
public enum ResourceEvent: Sendable, Hashable {
    /// A new state: fetched, seeded from an embedding document, sent back by a write
    /// (`Content-Location`), or a document whose embedded item changed.
    case updated(ResourceState)
    /// The stored state is out of date: a write, a server's invalidation signal, a failed
    /// `If-Match`, or an embedded copy that contradicts it.
    case stale
    /// The resource was deleted through this manager.
    case deleted
}
