import Foundation

/// Where one state lives in the store: the resource's normalised URL within one credential
/// scope (the fingerprint of the credentials the request carried, as the response cache keys
/// its entries).
struct StateKey: Sendable, Hashable {
    /// ``CredentialFingerprint/credentials(of:)`` of the request.
    let scope: [UInt8]
    /// ``URLNormalization/normalized(_:)``'s text.
    let url: String

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
    }
}

/// How long a state may be used with no request, from the `Cache-Control` of the response
/// that stored it (an embedded copy's from its parent's).
struct Freshness: Sendable {
    /// Until when; a state past it is revalidated before use.
    let until: ContinuousClock.Instant
    /// `false` for `no-store`: the state is handed out but never kept.
    let isStorable: Bool

    /// `max-age`, else `no-cache` (revalidate every time), else `defaultFreshness`.
    init(headers: HTTPHeaders, now: ContinuousClock.Instant, defaultFreshness: Duration) {
        let directives = CacheControl(headers["Cache-Control"])
        isStorable = !directives.noStore
        if directives.noCache {
            until = now
        } else {
            until = now + (directives.maxAge ?? defaultFreshness)
        }
    }
}

/// One stored state and what the store needs to keep it: freshness, invalidation, the byte
/// cost, recency, and the URLs its invalidation follows from.
struct StoredState: Sendable {
    /// As handed out, with `isStale` set on reading.
    var state: ResourceState
    var freshUntil: ContinuousClock.Instant
    /// Set by a write, a server's signal, a failed `If-Match` or a contradicting embedded copy.
    var isInvalidated = false
    var lastUsed: UInt64 = 0
    /// What it counts against ``ResourceStore/maximumBytes``.
    private(set) var cost: Int
    /// The normalised URLs of its `inv-by` links: it is out of date when any of them is.
    let invalidatedBy: Set<String>
    /// The normalised URLs of the resources it embeds (with a `self` link on its origin).
    let embeds: Set<String>

    init(state: ResourceState, freshness: Freshness, cost: Int, embeds: Set<String>) {
        self.state = state
        freshUntil = freshness.until
        self.cost = cost
        self.embeds = embeds
        invalidatedBy = Set(
            state.resource.links["inv-by"].compactMap { link in
                state.resource.url(for: link).map { URLNormalization.normalized($0).absoluteString }
            })
    }

    /// Puts `resource` in place of the document (an embedded item's new state), keeping
    /// everything else the response said.
    mutating func replaceResource(_ resource: HALResource, cost: Int) {
        state = ResourceState(
            url: state.url, resource: resource, status: state.status, headers: state.headers, etag: state.etag,
            lastModified: state.lastModified, isEmbedded: state.isEmbedded, isStale: state.isStale,
            storedAt: state.storedAt)
        self.cost = cost
    }

    /// Whether it needs a request before use at `now`.
    func isStale(at now: ContinuousClock.Instant) -> Bool {
        isInvalidated || now >= freshUntil
    }

    /// The state as read at `now`.
    func read(at now: ContinuousClock.Instant) -> ResourceState {
        var read = state
        read.isStale = isStale(at: now)
        return read
    }

    /// The state as a response just brought it: stale only when something invalidated it.
    var current: ResourceState {
        var read = state
        read.isStale = isInvalidated
        return read
    }
}
