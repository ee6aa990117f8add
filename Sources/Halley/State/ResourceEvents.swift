import Foundation

/// The events of one resource's state, as an `AsyncSequence` (see ``ResourceHandle/events``).
///
/// ```swift
/// let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
/// let watcher = Task {
///     for await event in order.events {
///         switch event {
///         case .updated(let state): print("now", state.resource.state)
///         case .stale: _ = try? await order.refresh()
///         case .deleted: print("gone")
///         }
///     }
/// }
/// watcher.cancel()  // ends the loop; nothing stays registered
/// ```
///
/// The sequence starts with the stored state as an ``ResourceEvent/updated(_:)`` when there
/// is one, then delivers every change once all states of the response that caused it are
/// stored. A consumer that falls behind gets the newest event of each kind, never an
/// unbounded buffer. Cancelling the consuming task, or dropping the iterator, ends the
/// sequence and unregisters it.
public struct ResourceEvents: AsyncSequence, Sendable {
    /// A resource event.
    public typealias Element = ResourceEvent

    let handle: ResourceHandle

    /// Starts listening (registration happens on the first `next()`).
    public func makeAsyncIterator() -> Iterator {
        Iterator(handle: handle)
    }

    /// Reads a ``ResourceEvents`` sequence.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let handle: ResourceHandle
        var subscription: EventSubscription?

        /// The next event; `nil` when the consuming task is cancelled.
        public mutating func next() async -> ResourceEvent? {
            if subscription == nil {
                // Whose state this is depends on the credentials a request would carry now.
                guard let key = try? await handle.stateKey() else { return nil }
                subscription = handle.store.subscribe(key)
            }
            return await subscription?.mailbox.next()
        }
    }
}

/// One registered consumer: unregistered when its iterator goes away or its task is cancelled.
final class EventSubscription: Sendable {
    let mailbox: EventMailbox
    let key: StateKey
    private let store: ResourceStore

    init(store: ResourceStore, key: StateKey, mailbox: EventMailbox) {
        self.store = store
        self.key = key
        self.mailbox = mailbox
    }

    deinit {
        mailbox.finish()
        store.unsubscribe(mailbox, from: key)
    }
}
