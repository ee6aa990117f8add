import Foundation
import HalleyHAL

/// What the store knows about one resource: its HAL document, the response that brought it,
/// its validators and whether it is still to be trusted.
///
/// ```swift
/// let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
/// let state = try await order.get()
/// print(state.resource.state["status"] ?? "none", state.etag ?? "no ETag", state.isStale)
/// ```
public struct ResourceState: Sendable, Hashable {
    /// The resource's URL, normalised (RFC 3986, section 6).
    public let url: URL
    /// The HAL document: the body of the response, or the embedded copy that seeded it.
    public let resource: HALResource
    /// The status of the response that brought it (`200` for an embedded copy).
    public let status: Int
    /// The header fields of that response (the parent's for an embedded copy).
    public let headers: HeaderFields
    /// The `ETag` of the response; `nil` for an embedded copy, which has none of its own.
    public let etag: String?
    /// The `Last-Modified` of the response; `nil` for an embedded copy.
    public let lastModified: String?
    /// Whether it came from another resource's `_embedded` rather than from its own URL.
    public let isEmbedded: Bool
    /// Whether it was out of date when it was read: past its freshness, or invalidated by a
    /// write or by the server. A stale state is still the last one known.
    public internal(set) var isStale: Bool
    /// When it was stored.
    public let storedAt: Date
    /// Why it is served stale: the refresh that failed (no network, a `5xx`, a timeout) while
    /// the cache policy or the response's `stale-if-error` (RFC 5861) allowed the last known
    /// state instead; `nil` when no refresh failed.
    ///
    /// ```swift
    /// let state = try await order.get(policy: .storedThenRefresh)
    /// if let failure = state.refreshFailure { print("offline:", failure.error.message) }
    /// ```
    public internal(set) var refreshFailure: RefreshFailure? = nil
    /// Whether it shows an optimistic edit the server has not answered yet (see
    /// ``ExpectedState``): the stored state with the pending edits applied in order, or a
    /// collection one of whose items has one. Never stored, never sent as a validator.
    public internal(set) var isPending = false
    /// The optimistic edit just rolled back, on the one ``ResourceEvent/updated(_:)`` that
    /// restored the state before it; `nil` on every other read.
    public internal(set) var rejectedEdit: RejectedEdit? = nil
}
