import HalleyHAL

#if canImport(Observation)
    import Foundation
    import Observation

    /// An observable view of one resource's state, for SwiftUI and any code that reads through
    /// Observation: its value, whether it is loading, stale or deleted, and the last error.
    ///
    /// The model follows its handle's ``ResourceHandle/events``: a write through any handle of
    /// the same manager, a server's invalidation signal or a traversal that stored a newer state
    /// updates it, with no refetch by hand. With `refreshesWhenStale`, a stale state is asked
    /// for again at once.
    ///
    /// ```swift
    /// @MainActor func showOrder(_ manager: ResourceManager) async {
    ///     let order = ResourceModel(
    ///         manager.resource(at: URL(string: "https://api.example.com/orders/7")!),
    ///         as: Order.self, refreshesWhenStale: true)
    ///     await order.load()
    ///     print(order.value?.status ?? "loading")
    /// }
    /// struct Order: Decodable { let status: String }
    /// ```
    ///
    /// In SwiftUI, hold it in `@State` and start it from `.task { await model.load() }`. The
    /// model stops following its handle when it is released, or on ``stop()``.
    ///
    /// `Value` need not be `Sendable`, and its `Decodable` conformance may be isolated to the
    /// main actor: the model reads its state on the main actor. So an app module built with
    /// default main-actor isolation declares its models plainly.
    @MainActor @Observable
    public final class ResourceModel<Value> {
        /// The handle whose state this model shows.
        @ObservationIgnored public let handle: ResourceHandle
        /// The state as `Value`; `nil` until it first arrives, and after the resource was deleted.
        public private(set) var value: Value?
        /// The state the value was read from.
        public private(set) var state: ResourceState?
        /// `true` while a ``load()`` or ``refresh()`` waits for the server.
        public private(set) var isLoading = false
        /// `true` once the stored state is out of date, until a newer one arrives.
        public private(set) var isStale = false
        /// `true` while the value shows an optimistic edit the server has not answered yet
        /// (see ``ExpectedState``).
        public private(set) var isPending = false
        /// `true` once the resource was deleted through the manager.
        public private(set) var isDeleted = false
        /// The error of the last request or decode, or of the optimistic edit just rolled back
        /// (``ResourceState/rejectedEdit``); `nil` after a success.
        public private(set) var error: (any Error)?
        /// Whether a stale state is asked for again at once (a ``refresh()``).
        public var refreshesWhenStale: Bool
        /// How ``load()`` weighs the stored state against the network (see ``CachePolicy``):
        /// with ``CachePolicy/storedThenRefresh`` the stored value shows at once and a stale one
        /// is refreshed; a failed refresh keeps the value and sets ``error``.
        public var policy: CachePolicy
        /// How often the state is asked for again while the model follows its handle (from
        /// ``load()`` until ``stop()`` or its release: paused while nobody shows it); `nil`, the
        /// default, never. Not positive: no refreshes, and ``error`` says why. A tick leaves
        /// ``isLoading`` alone (a refresh in the background shows no spinner).
        ///
        /// ```swift
        /// @MainActor func dashboard(_ model: ResourceModel<ResourceState>) async {
        ///     model.refreshInterval = .seconds(60)
        ///     await model.load()
        /// }
        /// ```
        public var refreshInterval: Duration? {
            didSet { scheduleRefreshes() }
        }

        // Called on the main actor only (from `show`), so neither it nor `Value` must be
        // `Sendable`, and a main-actor-isolated `Decodable` conformance may decode here.
        @ObservationIgnored private let read: (ResourceState) throws -> Value
        // Cancelled from `deinit`, which is not isolated to the main actor: the lock makes the
        // handover safe, and `Task.cancel()` may be called from any thread.
        @ObservationIgnored private let follower = LockedValue<Task<Void, Never>?>(nil)
        // The interval's task, handed over as the follower is.
        @ObservationIgnored private let ticker = LockedValue<Task<Void, Never>?>(nil)

        /// A model whose value is the ``ResourceState`` itself.
        ///
        /// ```swift
        /// @MainActor func watch(_ manager: ResourceManager) {
        ///     let model = ResourceModel(manager.resource(at: URL(string: "https://api.example.com/orders/7")!))
        ///     _ = model.value?.resource.state["status"]
        /// }
        /// ```
        public init(_ handle: ResourceHandle, policy: CachePolicy = .storedIfFresh, refreshesWhenStale: Bool = false)
        where Value == ResourceState {
            self.handle = handle
            self.policy = policy
            self.refreshesWhenStale = refreshesWhenStale
            self.read = { $0 }
        }

        /// A model whose value is the state decoded as `type`, with the manager's decoder
        /// (``HalleyCodable`` models too).
        ///
        /// ```swift
        /// @MainActor func watch(_ manager: ResourceManager) {
        ///     let model = ResourceModel(
        ///         manager.resource(at: URL(string: "https://api.example.com/orders/7")!), as: Order.self)
        ///     _ = model.value?.status
        /// }
        /// struct Order: Decodable { let status: String }
        /// ```
        public init(
            _ handle: ResourceHandle, as type: Value.Type, policy: CachePolicy = .storedIfFresh,
            refreshesWhenStale: Bool = false
        ) where Value: Decodable {
            self.handle = handle
            self.policy = policy
            self.refreshesWhenStale = refreshesWhenStale
            self.read = { state in try handle.decode(type, from: state) }
        }

        deinit {
            follower.get()?.cancel()
            ticker.get()?.cancel()
        }

        /// Reads the state as ``policy`` says (by default the stored one while fresh, else from the
        /// server) and from then on follows every change of it. Calling it again reads again
        /// and keeps one follower.
        ///
        /// ```swift
        /// @MainActor func open(_ model: ResourceModel<ResourceState>) async {
        ///     await model.load()
        /// }
        /// ```
        public func load() async {
            follow()
            let (handle, policy) = (self.handle, self.policy)
            if policy == .storedThenRefresh, let stored = await handle.current, show(stored) {
                // The stored value is on screen: a stale one is refreshed, and a failure leaves
                // it there with the error beside it.
                if stored.isStale { await request { try await handle.refresh() } }
                return
            }
            await request { try await handle.get(policy: policy) }
        }

        /// Asks the server for the state whatever is stored (conditionally when the state has
        /// validators).
        ///
        /// ```swift
        /// @MainActor func pullToRefresh(_ model: ResourceModel<ResourceState>) async {
        ///     await model.refresh()
        /// }
        /// ```
        public func refresh() async {
            await request { try await self.handle.refresh() }
        }

        /// Stops following the handle's changes; the value stays as it is.
        ///
        /// ```swift
        /// @MainActor func close(_ model: ResourceModel<ResourceState>) {
        ///     model.stop()
        /// }
        /// ```
        public func stop() {
            follower.exchange(nil)?.cancel()
            ticker.exchange(nil)?.cancel()
        }

        /// Starts the interval's refreshes while the model follows its handle: one shared
        /// request per tick (coalesced with any other of the same state), holding the model
        /// only while it runs.
        private func scheduleRefreshes() {
            ticker.exchange(nil)?.cancel()
            guard let interval = refreshInterval, follower.get() != nil else { return }
            guard interval > .zero else {
                error = HalleyError(
                    code: .invalidArgument, url: handle.url,
                    message: "refreshInterval must be longer than zero, and is \(interval); the model does not "
                        + "refresh on an interval")
                return
            }
            let handle = self.handle
            // The model is held only between awaits, never while a request waits: released
            // mid-request, it ends (its deinit cancels this task, and with it the request).
            ticker.set(
                Task { [weak self] in
                    while true {
                        do { try await Task.sleep(for: interval) } catch { return }
                        guard self != nil else { return }
                        let state: ResourceState
                        do {
                            state = try await handle.refreshShared()
                        } catch is CancellationError {
                            return
                        } catch {
                            self?.error = error
                            continue
                        }
                        guard let self else { return }
                        if let failure = state.refreshFailure { self.error = failure.error }
                        _ = self.show(state)
                    }
                })
        }

        private func request(_ fetch: @escaping @Sendable () async throws -> ResourceState) async {
            isLoading = true
            defer { isLoading = false }
            do {
                let state = try await fetch()
                defer { if let failure = state.refreshFailure { self.error = failure.error } }
                guard !show(state), state.isEmbedded else { return }
                // An embedded copy may be partial (the HAL draft): the resource's own URL says all.
                _ = show(try await handle.refresh())
            } catch is CancellationError {
                // A request the model's stop (or its release, or the caller) cancelled: no error
                // of the resource's, and the value stays.
            } catch {
                self.error = error
            }
        }

        /// One follower per model: it holds the model weakly, so a released model ends it.
        /// (Only main-actor code sets the follower; `deinit` only cancels it.)
        private func follow() {
            guard follower.get() == nil else { return }
            defer { scheduleRefreshes() }
            let events = handle.events
            follower.set(
                Task { [weak self] in
                    for await event in events {
                        guard let self else { return }
                        self.apply(event)
                    }
                })
        }

        private func apply(_ event: ResourceEvent) {
            switch event {
            case .updated(let state):
                if !show(state), state.isEmbedded, !isLoading {
                    // A partial embedded copy: fetch the resource's own state rather than fail.
                    Task { await self.refresh() }
                }
                if state.isStale { markStale() }
            case .stale:
                markStale()
            case .deleted:
                value = nil
                state = nil
                isStale = false
                isPending = false
                isDeleted = true
            }
        }

        /// Shows `state`; `false` when it does not read as `Value` (the error is kept unless
        /// the state is an embedded copy, which the caller replaces with the resource's own).
        @discardableResult
        private func show(_ state: ResourceState) -> Bool {
            do {
                let value = try read(state)
                self.value = value
                self.state = state
                self.isStale = state.isStale
                self.isPending = state.isPending
                self.isDeleted = false
                self.error = state.rejectedEdit?.error
                return true
            } catch {
                if !state.isEmbedded { self.error = error }
                return false
            }
        }

        private func markStale() {
            isStale = true
            if refreshesWhenStale, !isLoading {
                let handle = self.handle
                Task { await self.request { try await handle.refreshShared() } }
            }
        }
    }
#endif
