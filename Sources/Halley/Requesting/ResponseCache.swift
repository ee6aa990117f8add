import Foundation
import HalleyHAL
import HalleyTransport

/// An in-memory HTTP cache shared by every call of the managers it is given to (RFC 9111,
/// as a private cache).
///
/// - A `200` response to `GET` is stored unless it says `Cache-Control: no-store` or
///   `Vary: *`.
/// - **Entries are keyed by URL plus the credentials the request carried**: the values of
///   its credential-bearing headers (the request's ``ResourceRequest/credentialHeaders``:
///   `Authorization`, `Cookie`, `Proxy-Authorization` and yours), kept only as a salted SHA-256
///   fingerprint, never in clear. One manager shared by many users never serves one user's
///   response to another, or to a call without credentials.
/// - **`Vary` is honoured**: an entry matches only a request whose varied header values
///   equal those of the request that stored it (also fingerprinted); `Vary: *` is never
///   stored or served.
/// - While younger than its `max-age` (and not `no-cache`), it is reused with no request.
/// - Once stale, it is revalidated with `If-None-Match` (its `ETag`) and `If-Modified-Since`
///   (its `Last-Modified`); a `304` reuses the stored body. A stale entry with neither is not
///   revalidated: the request goes without validators, and a `304` to it is an error. The request holds that body until
///   its answer arrives, so a `304` is never an error, even when other calls evicted the
///   entry meanwhile (it is then stored again).
/// - A successful `POST`, `PUT`, `PATCH` or `DELETE` invalidates its URL, its `Location`,
///   its `Content-Location` and every `Link: <…>; rel="invalidates"` of the response (every
///   stored variant, whoever stored it), by the rule the ``ResourceStore`` follows too: a URL
///   named by a header counts only on the request's origin or one the call trusts.
/// - The total size is bounded; the least recently used entries go first.
///
/// Caching is off unless you give the manager a cache:
///
/// ```swift
/// var configuration = ResourceManager.Configuration()
/// configuration.cache = ResponseCache(maximumBytes: 20_000_000)
/// ```
public final class ResponseCache: Sendable {
    struct Entry: Sendable {
        var response: ResourceResponse
        var storedAt: ContinuousClock.Instant
        var maxAge: Duration?
        var mustRevalidate: Bool
        var lastUsed: UInt64
        /// Fingerprint of the request's credential-bearing headers.
        let credentials: [UInt8]
        /// The lowercased header names of the response's `Vary`, sorted.
        let varyNames: [String]
        /// Fingerprint of the storing request's values of ``varyNames``.
        let varied: [UInt8]

        var etag: String? { response.headers["ETag"] }
        var lastModified: String? { response.headers["Last-Modified"] }
        /// Whether a stale entry has a validator to make its request conditional with: the
        /// pipeline revalidates only such an entry.
        var canRevalidate: Bool { etag != nil || lastModified != nil }
        /// What the entry counts against ``ResponseCache/maximumBytes``: its body, its headers
        /// and a fixed cost, so that many empty responses are bounded too.
        var cost: Int {
            response.body.count + response.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count } + 256
        }

        func isFresh(at now: ContinuousClock.Instant) -> Bool {
            guard !mustRevalidate, let maxAge else { return false }
            return now - storedAt < maxAge
        }
    }

    private struct State {
        /// Variants per absolute URL.
        var entries: [String: [Entry]] = [:]
        var bytes = 0
        /// The order of last uses (a variant is its URL and its ``Entry/lastUsed`` stamp).
        var recency = RecencyQueue<String>()

        /// A use of a variant of `key`: its stamp, for the entry's ``Entry/lastUsed``.
        mutating func used(_ key: String) -> UInt64 {
            if recency.needsRebuild {
                let live = entries.flatMap { key, variants in variants.map { (key: key, stamp: $0.lastUsed) } }
                recency.rebuild(from: live)
            }
            return recency.use(key)
        }
    }

    private let state = LockedValue(State())
    /// Fingerprints credentials and varied headers with this cache's own salt.
    private let fingerprints = CredentialFingerprint()
    /// The most bytes kept: bodies, headers and a small fixed cost per entry.
    public let maximumBytes: Int

    /// Creates an empty cache holding at most `maximumBytes` (10 MB by default).
    public init(maximumBytes: Int = 10_000_000) {
        self.maximumBytes = maximumBytes
    }

    /// The number of stored responses (every variant counts).
    public var count: Int { state.get().entries.values.reduce(0) { $0 + $1.count } }

    /// Forgets every response stored for `url`, whatever credentials or headers stored it.
    public func invalidate(_ url: URL) {
        state.withLock { state in
            for removed in state.entries.removeValue(forKey: url.absoluteString) ?? [] { state.bytes -= removed.cost }
        }
    }

    /// Forgets everything.
    public func removeAll() {
        state.set(State())
    }

    /// The stored response `request` may use: same URL, same credentials, same varied headers.
    func lookup(_ request: ResourceRequest) -> Entry? {
        let credentials = credentialFingerprint(request)
        return state.withLock { state in
            let key = request.url.absoluteString
            guard let index = matchIndex(in: state.entries[key] ?? [], request: request, credentials: credentials)
            else {
                return nil
            }
            let stamp = state.used(key)
            state.entries[key]?[index].lastUsed = stamp
            return state.entries[key]?[index]
        }
    }

    /// Stores a `200` answer to `request` (replacing the variant it matches).
    func store(_ response: ResourceResponse, for request: ResourceRequest, at now: ContinuousClock.Instant = .now) {
        let directives = CacheControl(response.headers["Cache-Control"])
        let varyNames = Self.varyNames(response)
        let credentials = credentialFingerprint(request)
        let key = request.url.absoluteString
        guard response.status == 200, !directives.noStore, !varyNames.contains("*") else {
            // What the server now says must not be reused replaces what it said before.
            state.withLock { state in
                guard let index = matchIndex(in: state.entries[key] ?? [], request: request, credentials: credentials),
                    let removed = state.entries[key]?.remove(at: index)
                else { return }
                state.bytes -= removed.cost
            }
            return
        }
        let varied = fingerprint(request, names: varyNames)
        state.withLock { state in
            var variants = state.entries[key] ?? []
            if let index = variants.firstIndex(where: {
                $0.credentials == credentials && $0.varyNames == varyNames && $0.varied == varied
            }) {
                state.bytes -= variants.remove(at: index).cost
            }
            let entry = Entry(
                response: response, storedAt: now, maxAge: directives.maxAge,
                mustRevalidate: directives.noCache, lastUsed: state.used(key), credentials: credentials,
                varyNames: varyNames, varied: varied)
            guard entry.cost <= maximumBytes else {
                state.entries[key] = variants.isEmpty ? nil : variants
                return
            }
            variants.append(entry)
            state.entries[key] = variants
            state.bytes += entry.cost
            evict(&state)
        }
    }

    /// Records a `304` to a request made conditional with `held`'s validators: `held`'s body
    /// is the answer, with the `304`'s headers, and its freshness restarts.
    ///
    /// The stored entry is updated when it still holds the same validators. When a concurrent
    /// call evicted or invalidated it while the request was in flight, `held` is stored again:
    /// the server has just confirmed it. When another call replaced it with a different
    /// representation, that one stays; the answer is still `held`'s body, which is what the
    /// server confirmed for this request.
    func refresh(
        _ request: ResourceRequest, with notModified: ResourceResponse, held: Entry,
        at now: ContinuousClock.Instant = .now
    ) -> ResourceResponse {
        var entry = held
        for field in notModified.headers
        where ["cache-control", "etag", "expires", "last-modified", "date"].contains(field.name.lowercased()) {
            entry.response.headers[field.name] = field.value
        }
        let directives = CacheControl(entry.response.headers["Cache-Control"])
        entry.storedAt = now
        entry.maxAge = directives.maxAge
        entry.mustRevalidate = directives.noCache
        let credentials = credentialFingerprint(request)
        let key = request.url.absoluteString
        return state.withLock { state in
            entry.lastUsed = state.used(key)
            let variants = state.entries[key] ?? []
            if let index = matchIndex(in: variants, request: request, credentials: credentials) {
                let current = variants[index]
                guard current.etag == held.etag, current.lastModified == held.lastModified else {
                    return entry.response
                }
                state.bytes -= current.cost
                state.entries[key]?[index] = entry
            } else {
                guard entry.cost <= maximumBytes, entry.credentials == credentials else { return entry.response }
                // A variant of the held entry's own key (stored for other varied values than this
                // request's) is the one it replaces.
                var kept = variants
                if let same = kept.firstIndex(where: {
                    $0.credentials == entry.credentials && $0.varyNames == entry.varyNames && $0.varied == entry.varied
                }) {
                    state.bytes -= kept.remove(at: same).cost
                }
                state.entries[key] = kept + [entry]
            }
            state.bytes += entry.cost
            evict(&state)
            return entry.response
        }
    }

    // MARK: Keys

    private func matchIndex(in variants: [Entry], request: ResourceRequest, credentials: [UInt8]) -> Int? {
        variants.firstIndex { entry in
            entry.credentials == credentials && entry.varied == fingerprint(request, names: entry.varyNames)
        }
    }

    private func credentialFingerprint(_ request: ResourceRequest) -> [UInt8] {
        fingerprints.credentials(of: request)
    }

    private func fingerprint(_ request: ResourceRequest, names: [String]) -> [UInt8] {
        fingerprints.values(of: request, names: names)
    }

    /// The lowercased, sorted, distinct names in the response's `Vary` fields (the store's
    /// rule too).
    private static func varyNames(_ response: ResourceResponse) -> [String] {
        SelectingHeaders.varyNames(response.headers)
    }

    private func evict(_ state: inout State) {
        while state.bytes > maximumBytes, let (key, stamp) = state.recency.takeOldest() {
            // A use taken here is stale when its variant was used since or is gone.
            guard let index = state.entries[key]?.firstIndex(where: { $0.lastUsed == stamp }),
                let removed = state.entries[key]?.remove(at: index)
            else { continue }
            if state.entries[key]?.isEmpty == true { state.entries[key] = nil }
            state.bytes -= removed.cost
        }
    }
}

/// The `Cache-Control` directives the cache understands.
struct CacheControl {
    var noStore = false
    var noCache = false
    var maxAge: Duration?
    /// RFC 5861: how long past its freshness a response may be used while it is revalidated.
    var staleWhileRevalidate: Duration?
    /// RFC 5861: how long past its freshness a response may be used when revalidating fails.
    var staleIfError: Duration?

    init(_ header: String?) {
        guard let header else { return }
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            switch parts.first {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "max-age":
                if parts.count == 2, let seconds = Int(parts[1].trimmingCharacters(in: ["\""])) {
                    maxAge = .seconds(max(0, seconds))
                }
            case "stale-while-revalidate":
                if parts.count == 2, let seconds = Int(parts[1].trimmingCharacters(in: ["\""])) {
                    staleWhileRevalidate = .seconds(max(0, seconds))
                }
            case "stale-if-error":
                if parts.count == 2, let seconds = Int(parts[1].trimmingCharacters(in: ["\""])) {
                    staleIfError = .seconds(max(0, seconds))
                }
            default: break
            }
        }
    }
}
