import Foundation
import HalleyHAL

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
/// The sequence registers when it is made (reading ``ResourceHandle/events``), so no change
/// after that is missed: it starts with the stored state as an ``ResourceEvent/updated(_:)``
/// when there is one, then delivers every change, in the order the store applied them, once
/// all states of the response that caused it are stored; it ends on the store's current
/// state. A consumer that falls behind gets the newest event of each kind, never an
/// unbounded buffer. Cancelling the consuming task, or dropping the sequence and its
/// iterator, ends the sequence and unregisters it.
public struct ResourceEvents: AsyncSequence, Sendable {
    /// A resource event.
    public typealias Element = ResourceEvent

    let handle: ResourceHandle
    /// The registration made with the sequence, for its first iterator.
    private let registration: Registration

    init(handle: ResourceHandle) {
        self.handle = handle
        registration = Registration(handle.store.subscribe(handle.url, handle: handle))
    }

    /// Starts listening: the first iterator from the registration made with the sequence, any
    /// other from a registration of its own, made now.
    public func makeAsyncIterator() -> Iterator {
        Iterator(
            handle: handle, subscription: registration.take() ?? handle.store.subscribe(handle.url, handle: handle))
    }

    /// Reads a ``ResourceEvents`` sequence.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let handle: ResourceHandle
        let subscription: EventSubscription
        var isResolved = false

        /// The next event; `nil` when the consuming task is cancelled.
        public mutating func next() async -> ResourceEvent? {
            if !isResolved {
                // Whose states these are depends on the credentials and headers a request
                // would carry now.
                guard let scope = try? await handle.stateScope() else { return nil }
                subscription.mailbox.resolve(scope)
                isResolved = true
            }
            return await subscription.mailbox.next()
        }
    }

    /// A registration taken by one iterator at most.
    private final class Registration: Sendable {
        private let subscription: LockedValue<EventSubscription?>

        init(_ subscription: EventSubscription) {
            self.subscription = LockedValue(subscription)
        }

        func take() -> EventSubscription? { subscription.exchange(nil) }
    }
}

/// One registered consumer: unregistered when its sequence and iterator go away or its task
/// is cancelled.
final class EventSubscription: Sendable {
    let mailbox: EventMailbox
    let url: String
    private let store: ResourceStore

    init(store: ResourceStore, url: String, mailbox: EventMailbox) {
        self.store = store
        self.url = url
        self.mailbox = mailbox
    }

    deinit {
        mailbox.finish()
        store.unsubscribe(mailbox, from: url)
    }
}
