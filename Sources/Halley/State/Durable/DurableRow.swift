import Foundation
import HalleyHAL

/// One stored state as a row of the durable store: what the in-memory state holds, with its
/// times on the wall clock so that its age continues across relaunches.
///
/// The body is the document the server sent, written as JSON; the headers kept are only
/// those freshness, validators, links and decoding need (never `Set-Cookie` or other
/// credentials). The key's scope is the credential fingerprint, never the credentials.
struct DurableRow: Sendable {
    let scope: Data
    let url: String
    let variant: String
    let body: Data
    let status: Int
    /// The kept header fields, one `name: value` a line.
    let headers: String
    /// When the state was received (seconds since 1970).
    let received: Double
    /// Until when it is fresh (seconds since 1970).
    let freshUntil: Double
    let isInvalidated: Bool
    let isEmbedded: Bool
    /// Its `Vary` names (an embedded copy: its parent's), comma-separated.
    let vary: String

    /// The header fields a row keeps (lowercased).
    static let keptHeaders: Set<String> = [
        "cache-control", "etag", "last-modified", "date", "age", "expires", "vary", "content-type",
        "content-location", "link",
    ]

    /// What the row counts against the bound on disk: its columns, plus SQLite's own overhead
    /// for a row and its index entry, estimated.
    var bytes: Int { body.count + headers.utf8.count + url.utf8.count * 2 + scope.count * 2 + variant.utf8.count + 48 }

    init(
        scope: Data, url: String, variant: String, body: Data, status: Int, headers: String, received: Double,
        freshUntil: Double, isInvalidated: Bool, isEmbedded: Bool, vary: String
    ) {
        self.scope = scope
        self.url = url
        self.variant = variant
        self.body = body
        self.status = status
        self.headers = headers
        self.received = received
        self.freshUntil = freshUntil
        self.isInvalidated = isInvalidated
        self.isEmbedded = isEmbedded
        self.vary = vary
    }

    /// The row of `stored` at `key`, its freshness moved to the wall clock at `now`.
    init(key: StateKey, stored: StoredState, now: ContinuousClock.Instant, wallNow: Date) {
        var kept: [String] = []
        for field in stored.state.headers where Self.keptHeaders.contains(field.name.lowercased()) {
            // A line break in a value cannot come from a parsed header; dropping it keeps the
            // format one field a line whatever a test double sends.
            guard !field.value.contains(where: \.isNewline), !field.name.contains(where: \.isNewline) else { continue }
            kept.append("\(field.name): \(field.value)")
        }
        let remaining =
            now < stored.freshUntil ? (stored.freshUntil - now).inSeconds : -(now - stored.freshUntil).inSeconds
        self.init(
            scope: Data(key.scope), url: key.url, variant: key.variant,
            body: JSONValue.object(stored.state.resource.json).serialized(), status: stored.state.status,
            headers: kept.joined(separator: "\n"), received: stored.state.storedAt.timeIntervalSince1970,
            freshUntil: wallNow.timeIntervalSince1970 + remaining, isInvalidated: stored.isInvalidated,
            isEmbedded: stored.state.isEmbedded, vary: stored.varyNames.joined(separator: ","))
    }

    /// This row, invalidated.
    func invalidated() -> DurableRow {
        DurableRow(
            scope: scope, url: url, variant: variant, body: body, status: status, headers: headers, received: received,
            freshUntil: freshUntil, isInvalidated: true, isEmbedded: isEmbedded, vary: vary)
    }

    /// Why a row cannot be used: it names the URL and what is wrong.
    struct Unreadable: Error, Sendable {
        let message: String
    }

    /// A 64-bit FNV-1a digest of every column: SQLite checks its pages' structure, not the
    /// bytes of a value, so a row whose bytes were overwritten is told by this.
    var checksum: Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01b3
            }
            // A separator, so that moving bytes between two columns changes the digest.
            hash ^= 0xff
            hash &*= 0x100_0000_01b3
        }
        func mix(_ data: Data) { data.withUnsafeBytes { mix($0) } }
        func mix(_ text: String) {
            var text = text
            text.withUTF8 { mix(UnsafeRawBufferPointer($0)) }
        }
        func mix(_ bytes: [UInt8]) { bytes.withUnsafeBytes { mix($0) } }
        mix(scope)
        mix(url)
        mix(variant)
        mix(body)
        mix(String(status))
        mix(headers)
        mix(String(received.bitPattern))
        mix(String(freshUntil.bitPattern))
        mix([isInvalidated ? 1 : 0, isEmbedded ? 1 : 0])
        mix(vary)
        return Int64(bitPattern: hash)
    }

    /// The row's key.
    var key: StateKey { StateKey(scope: Array(scope), url: url, variant: variant) }

    /// The stored state the row holds, its freshness moved back to the monotonic clock at `now`.
    ///
    /// - Throws: ``Unreadable`` when the body no longer parses as a HAL document.
    func stored(now: ContinuousClock.Instant, wallNow: Date) throws(Unreadable) -> StoredState {
        guard let url = URL(string: url), url.scheme != nil else {
            throw Unreadable(message: "a stored state's URL \"\(self.url)\" is not an absolute URL")
        }
        var fields: [(String, String)] = []
        for line in headers.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            // perf: spaces and tabs trimmed by hand; Foundation's `trimmingCharacters` was a
            // tenth of reading a row (BENCHMARKS.md, "Why the hot paths look as they do").
            let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            var value = line[line.index(after: colon)...].drop(while: isBlank)
            while let last = value.last, isBlank(last) { value = value.dropLast() }
            fields.append((String(line[..<colon]), String(value)))
        }
        let headers = HeaderFields(fields)
        var resource: HALResource
        do {
            resource = try HALResource(json: try JSONValue(parsing: body), url: url)
        } catch {
            throw Unreadable(message: "the stored body of \(url.absoluteString) no longer parses (\(error))")
        }
        if !isEmbedded, let link = headers["Link"] { resource = resource.addingLinks(fromHeader: link, url: url) }
        let state = ResourceState(
            url: url, resource: resource, status: status, headers: headers,
            etag: isEmbedded ? nil : headers["ETag"], lastModified: isEmbedded ? nil : headers["Last-Modified"],
            isEmbedded: isEmbedded, isStale: false, storedAt: Date(timeIntervalSince1970: received))
        let remaining = freshUntil - wallNow.timeIntervalSince1970
        let until = remaining >= 0 ? now + .seconds(remaining) : now - .seconds(-remaining)
        let carried = StateStorage.carried(by: resource, at: url)
        var stored = StoredState(
            state: state, freshness: Freshness(until: until),
            cost: body.count
                + headers.reduce(0) {
                    $0 + $1.name.utf8.count + $1.value.utf8.count
                } + StateStorage.fixedCost,
            embeds: Set(carried.embedded.map(\.key)), items: carried.items,
            varyNames: vary.isEmpty ? [] : vary.split(separator: ",").map(String.init))
        stored.isInvalidated = isInvalidated
        return stored
    }
}

extension Freshness {
    /// A freshness read back from the durable store: storable, fresh until `until`.
    init(until: ContinuousClock.Instant) {
        self.until = until
        self.isStorable = true
    }
}
