import Foundation

/// How a get weighs the stored state against the network, in the words Apollo's users know.
///
/// ```swift
/// let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
/// let shown = try await order.get(policy: .storedThenRefresh)   // at once, even stale
/// let offline = try await order.get(policy: .storedOnly)        // never a request
/// ```
///
/// - ``storedIfFresh``: the stored state while fresh (`max-age`), else a request (conditional
///   when the state has validators). Within the response's `stale-while-revalidate` (RFC 5861)
///   the stale state is returned at once and revalidated in the background.
/// - ``storedThenRefresh``: the stored state at once, fresh or stale; a stale one is refreshed
///   in the background and observers (``ResourceHandle/events``, ``ResourceModel``) get the new
///   state when it arrives. Nothing stored: a request, waited for.
/// - ``storedOnly``: never a request (offline); ``HalleyError/Code/notStored`` naming the URL
///   when nothing is stored.
/// - ``network``: always a request, conditional when the state has validators.
///
/// When a request fails (no network, a `5xx`, a timeout) and a state is stored, it is
/// returned stale with ``ResourceState/refreshFailure`` saying why: always under
/// ``storedThenRefresh``, and within the response's `stale-if-error` (RFC 5861) under the
/// others. A `404` or `410` removes the state (observers hear ``ResourceEvent/deleted``).
public struct CachePolicy: Sendable, Hashable, CustomStringConvertible {
    enum Kind: String, Sendable {
        case storedIfFresh, storedThenRefresh, storedOnly, network
    }

    let kind: Kind

    /// The stored state while fresh, else a request; the default of ``ResourceHandle/get()``.
    public static let storedIfFresh = CachePolicy(kind: .storedIfFresh)
    /// The stored state at once, even stale, refreshed in the background when stale.
    public static let storedThenRefresh = CachePolicy(kind: .storedThenRefresh)
    /// The stored state, fresh or stale, and never a request.
    public static let storedOnly = CachePolicy(kind: .storedOnly)
    /// Always a request (conditional when the stored state has validators).
    public static let network = CachePolicy(kind: .network)

    /// The policy's name.
    public var description: String { kind.rawValue }
}
