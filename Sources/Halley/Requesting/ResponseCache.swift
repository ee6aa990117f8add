import Foundation

/// An in-memory HTTP cache shared by every call of the managers it is given to (RFC 9111,
/// as a private cache).
///
/// - A `200` response to `GET` is stored unless it says `Cache-Control: no-store`.
/// - While younger than its `max-age` (and not `no-cache`), it is reused with no request.
/// - Once stale, it is revalidated with `If-None-Match` (its `ETag`) and `If-Modified-Since`
///   (its `Last-Modified`); a `304` reuses the stored body.
/// - A successful `POST`, `PUT`, `PATCH` or `DELETE` invalidates its URL and `Location`.
/// - The total body size is bounded; the least recently used entries go first.
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

        var etag: String? { response.headers["ETag"] }
        var lastModified: String? { response.headers["Last-Modified"] }
        var canRevalidate: Bool { etag != nil || lastModified != nil }

        func isFresh(at now: ContinuousClock.Instant) -> Bool {
            guard !mustRevalidate, let maxAge else { return false }
            return now - storedAt < maxAge
        }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    private let state = LockedValue(State())
    /// The most body bytes kept.
    public let maximumBytes: Int

    /// Creates an empty cache holding at most `maximumBytes` of bodies (10 MB by default).
    public init(maximumBytes: Int = 10_000_000) {
        self.maximumBytes = maximumBytes
    }

    /// The number of stored responses.
    public var count: Int { state.get().entries.count }

    /// Forgets the response for `url`.
    public func invalidate(_ url: URL) {
        state.withLock { state in
            if let removed = state.entries.removeValue(forKey: url.absoluteString) { state.bytes -= removed.response.body.count }
        }
    }

    /// Forgets everything.
    public func removeAll() {
        state.set(State())
    }

    func lookup(_ url: URL) -> Entry? {
        state.withLock { state in
            guard var entry = state.entries[url.absoluteString] else { return nil }
            state.clock += 1
            entry.lastUsed = state.clock
            state.entries[url.absoluteString] = entry
            return entry
        }
    }

    func store(_ response: ResourceResponse, for url: URL, at now: ContinuousClock.Instant = .now) {
        let directives = CacheControl(response.headers["Cache-Control"])
        guard response.status == 200, !directives.noStore, response.body.count <= maximumBytes else { return }
        state.withLock { state in
            let key = url.absoluteString
            if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.response.body.count }
            state.clock += 1
            state.entries[key] = Entry(response: response, storedAt: now, maxAge: directives.maxAge,
                                       mustRevalidate: directives.noCache, lastUsed: state.clock)
            state.bytes += response.body.count
            while state.bytes > maximumBytes, let oldest = state.entries.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                state.entries.removeValue(forKey: oldest.key)
                state.bytes -= oldest.value.response.body.count
            }
        }
    }

    /// Records a `304`: the stored body stays, its freshness restarts with the new headers.
    func refresh(_ url: URL, with notModified: ResourceResponse, at now: ContinuousClock.Instant = .now) -> ResourceResponse? {
        state.withLock { state in
            guard var entry = state.entries[url.absoluteString] else { return nil }
            for field in notModified.headers where ["cache-control", "etag", "expires", "last-modified", "date"]
                .contains(field.name.lowercased())
            {
                entry.response.headers[field.name] = field.value
            }
            let directives = CacheControl(entry.response.headers["Cache-Control"])
            entry.storedAt = now
            entry.maxAge = directives.maxAge
            entry.mustRevalidate = directives.noCache
            state.entries[url.absoluteString] = entry
            return entry.response
        }
    }
}

/// The `Cache-Control` directives the cache understands.
struct CacheControl {
    var noStore = false
    var noCache = false
    var maxAge: Duration?

    init(_ header: String?) {
        guard let header else { return }
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            switch parts.first {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "max-age":
                if parts.count == 2, let seconds = Int(parts[1].trimmingCharacters(in: ["\""])) { maxAge = .seconds(max(0, seconds)) }
            default: break
            }
        }
    }
}
