import Foundation
import HalleyHAL

/// Where one state lives in the store: the resource's normalised URL within one credential
/// scope (the fingerprint of the credentials the request carried, as the response cache keys
/// its entries), and the values of the request headers its response's `Vary` named (RFC 9111,
/// section 4.1): two languages of one URL are two states.
struct StateKey: Sendable, Hashable {
    /// ``CredentialFingerprint/credentials(of:)`` of the request.
    let scope: [UInt8]
    /// ``URLNormalization/normalized(_:)``'s text.
    let url: String
    /// ``SelectingHeaders/variant(for:)`` of the request for the response's `Vary` names;
    /// empty when it named none.
    var variant: String = ""

    /// The scope's first eight bytes, read as one word: it is a SHA-256 digest, so they are
    /// as good a hash as all of it (equality still compares every byte), and hashing the
    /// bytes one `UInt8` at a time cost more than the rest of a fresh state's lookup.
    func hash(into hasher: inout Hasher) {
        var word: UInt64 = 0
        scope.withUnsafeBytes { bytes in
            withUnsafeMutableBytes(of: &word) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.prefix(8))) }
        }
        hasher.combine(word)
        hasher.combine(url)
        hasher.combine(variant)
    }
}

/// How long a state may be used with no request, from the `Cache-Control` of the response
/// that stored it (an embedded copy's from its parent's).
struct Freshness: Sendable {
    /// Until when; a state past it is revalidated before use.
    let until: ContinuousClock.Instant
    /// `false` for `no-store`: the state is handed out but never kept.
    let isStorable: Bool

    /// `max-age`, else `no-cache` (revalidate every time), else `defaultFreshness`. A
    /// response that says `Vary: *` is never kept: no later request can be said to match it.
    init(headers: HeaderFields, now: ContinuousClock.Instant, defaultFreshness: Duration) {
        let directives = CacheControl(headers["Cache-Control"])
        isStorable = !directives.noStore && !SelectingHeaders.varyNames(headers).contains("*")
        if directives.noCache {
            until = now
        } else {
            until = now + (directives.maxAge ?? defaultFreshness)
        }
    }
}

/// One stored state and what the store needs to keep it: freshness, invalidation, the byte
/// cost, recency, and the URLs its invalidation and its composed view follow from.
///
/// ``state`` is always exactly what a server sent (a response body, or an embedded copy cut
/// from one, with the validators that came with it): nothing rewrites it in place.
struct StoredState: Sendable {
    /// As the server sent it, with `isStale` set on reading.
    let state: ResourceState
    var freshUntil: ContinuousClock.Instant
    /// Set by a write, a server's signal, a failed `If-Match`, a contradicting embedded copy
    /// or an outdated embedded one.
    var isInvalidated = false
    var lastUsed: UInt64 = 0
    /// When it was stored, in the store's order: a collection shows an item's state in place
    /// of its own copy only when that state is newer.
    var sequence: UInt64 = 0
    /// Whether an item it lists got a newer state since it was stored: only then is a read
    /// composed (see ``StateStorage/view(_:at:)``).
    var hasNewerItems = false
    /// What it counts against ``ResourceStore/maximumBytes``.
    let cost: Int
    /// The normalised URLs of its `inv-by` links: it is out of date when any of them is.
    let invalidatedBy: Set<String>
    /// The normalised URLs of the resources it embeds (with a `self` link on its origin), at
    /// any depth.
    let embeds: Set<String>
    /// The normalised URLs its `item` relation lists, embedded or linked: it is a collection
    /// of them.
    let items: Set<String>
    /// The lowercased names its response's `Vary` named (an embedded copy: its parent's).
    let varyNames: [String]

    init(
        state: ResourceState, freshness: Freshness, cost: Int, embeds: Set<String>, items: Set<String>,
        varyNames: [String]
    ) {
        self.state = state
        freshUntil = freshness.until
        self.cost = cost
        self.embeds = embeds
        self.items = items
        self.varyNames = varyNames
        invalidatedBy = Set(
            state.resource.links["inv-by"].compactMap { link in
                state.resource.url(for: link).map { URLNormalization.normalized($0).absoluteString }
            })
    }

    /// The URLs whose changes reach it.
    var dependencies: Set<String> { embeds.union(invalidatedBy).union(items) }

    /// Whether it needs a request before use at `now`.
    func isStale(at now: ContinuousClock.Instant) -> Bool {
        isInvalidated || now >= freshUntil
    }
}
