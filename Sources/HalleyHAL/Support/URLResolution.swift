import Foundation

/// Resolves a URI reference against a base URL (RFC 3986, section 5): the one place the
/// library does it, for links, `self` links, redirects and `Location` headers.
///
/// `URL(string:relativeTo:)` followed by `absoluteURL` parses the reference, the base and
/// the result (perf: BENCHMARKS.md, "Why the hot paths look as they do"). Most hrefs
/// a HAL server writes are absolute (`https://…`) or absolute paths (`/orders/7`) made of
/// plain characters; for those, RFC 3986 resolution is string joining, checked here and
/// parsed once. Everything else (relative paths, dot segments, percent signs, non-ASCII,
/// other schemes) goes through Foundation, so the result is always Foundation's.
package enum URLResolution {
    /// `reference` resolved against `base`; `nil` when it is not a usable URL.
    package static func resolve(_ reference: String, against base: URL?) -> URL? {
        if let joined = joined(reference, base) { return URL(string: joined) }
        return URL(string: reference, relativeTo: base)?.absoluteURL
    }

    /// ``resolve(_:against:)`` for a base the engine carries as text (``LazyURL``): joined text
    /// is carried as it is, and the base is parsed only when Foundation resolves. `origin`,
    /// when given, is `base`'s (``OriginPrefix``), found once for many references.
    /// `requiringScheme` refuses a result without a scheme (joined text always has one).
    package static func resolve(
        _ reference: String, against base: LazyURL?, origin: OriginPrefix? = nil, requiringScheme: Bool = false
    ) -> LazyURL? {
        if let joined = joined(reference, origin ?? OriginPrefix(base)) { return LazyURL(verbatim: joined) }
        guard let url = URL(string: reference, relativeTo: base?.url)?.absoluteURL,
            !requiringScheme || url.scheme != nil
        else { return nil }
        return LazyURL(url)
    }

    /// `url` made absolute: a URL relative to a chain of bases resolves level by level, each
    /// through ``resolve(_:against:)``.
    package static func absolute(_ url: URL) -> URL {
        guard let parent = url.baseURL else { return url }
        return resolve(url.relativeString, against: absolute(parent)) ?? url.absoluteURL
    }

    /// The resolved URL's text when plain joining gives what RFC 3986 resolution gives.
    ///
    /// Such text is verbatim (``LazyURL/init(verbatim:)``): `URL(string:)` parses it, with that
    /// very text as its `absoluteString`. An absolute reference qualifies only when plain
    /// through and through (``isPlain(_:)``, ``hasPlainAuthority(_:end:)``); an absolute path
    /// is plain too, and goes after the authority of a base that is itself a URL's text.
    static func joined(_ reference: String, _ base: URL?) -> String? {
        joined(reference) { path in
            guard let base else { return nil }
            var baseText = base.absoluteString
            return baseText.withUTF8 { baseBytes -> String? in
                guard let end = authorityEnd(of: baseBytes) else { return nil }
                return concatenated(UnsafeBufferPointer(rebasing: baseBytes[..<end]), &path)
            }
        }
    }

    /// ``joined(_:_:)`` against a base whose origin was found once, for all the links of a
    /// relation, rather than reading the base's `absoluteString` and finding its authority
    /// again for each. With no origin (no base, or one that is not `http` or `https`), only an
    /// absolute URL joins.
    ///
    /// perf: the base's origin found once per relation;
    /// BENCHMARKS.md, "Why the hot paths look as they do".
    static func joined(_ reference: String, _ origin: OriginPrefix?) -> String? {
        joined(reference) { path in origin?.text.withUnsafeBufferPointer { concatenated($0, &path) } }
    }

    /// The one joining rule: an absolute URL is kept as written, an absolute path goes to
    /// `joinPath` (which puts the base's origin before it), anything else is not joined.
    @inline(__always)
    private static func joined(_ reference: String, joinPath: (inout String) -> String?) -> String? {
        var reference = reference
        switch shape(of: &reference) {
        case .other: return nil
        case .absoluteURL: return reference
        case .absolutePath: return joinPath(&reference)
        }
    }

    /// A base URL's text up to the end of its authority (`https://host:port`): what an
    /// absolute path is joined to.
    package struct OriginPrefix: Sendable {
        fileprivate let text: [UInt8]

        /// `nil` unless `base` is an `http` or `https` URL with an authority (then only
        /// Foundation resolves against it, as ``joined(_:_:)`` does).
        package init?(_ base: LazyURL?) {
            guard var baseText = base?.text else { return nil }
            guard let text = baseText.withUTF8({ bytes in authorityEnd(of: bytes).map { Array(bytes[..<$0]) } })
            else { return nil }
            self.text = text
        }
    }

    private enum Shape { case absolutePath, absoluteURL, other }

    /// How `reference` joins: as an absolute path, as an absolute URL kept as written, or not
    /// by plain joining.
    @inline(__always)
    private static func shape(of reference: inout String) -> Shape {
        reference.withUTF8 { bytes -> Shape in
            guard let first = bytes.first, isPlain(bytes) else { return .other }
            // An absolute path; "//host" is a network-path reference, left to Foundation.
            if first == UInt8(ascii: "/") {
                return bytes.count == 1 || bytes[1] != UInt8(ascii: "/") ? .absolutePath : .other
            }
            // An absolute http(s) URL: resolution keeps it as written (no dot segments here).
            // Only a host and a port are taken as written: Foundation re-encodes some user
            // info (`a@b@c`), and the joined text must be the URL's own (``LazyURL``).
            guard let end = authorityEnd(of: bytes) else { return .other }
            return hasPlainAuthority(bytes, end: end) ? .absoluteURL : .other
        }
    }

    /// Whether the authority of `text` (which ends at `end`) is a host of letters, digits,
    /// `-`, `.`, `_` and `~`, then at most a `:` and digits: what `URL(string:)` keeps as it
    /// is, with no user info, brackets or percent signs to interpret.
    private static func hasPlainAuthority(_ text: UnsafeBufferPointer<UInt8>, end: Int) -> Bool {
        var index = text[4] == UInt8(ascii: "s") ? 8 : 7
        let hostStart = index
        while index < end, isHostByte(text[index]) { index += 1 }
        guard index > hostStart else { return false }
        guard index < end else { return true }
        guard text[index] == UInt8(ascii: ":") else { return false }
        index += 1
        while index < end {
            guard text[index] >= UInt8(ascii: "0") && text[index] <= UInt8(ascii: "9") else { return false }
            index += 1
        }
        return true
    }

    @inline(__always)
    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// `origin` followed by `path`, as one string.
    @inline(__always)
    private static func concatenated(_ origin: UnsafeBufferPointer<UInt8>, _ path: inout String) -> String {
        path.withUTF8 { bytes in
            String(unsafeUninitializedCapacity: origin.count + bytes.count) { buffer in
                _ = buffer.initialize(from: origin)
                _ = UnsafeMutableBufferPointer(rebasing: buffer[origin.count...]).initialize(from: bytes)
                return origin.count + bytes.count
            }
        }
    }

    /// Where the authority of `text` ends, for `http://` and `https://` text only.
    private static func authorityEnd(of text: UnsafeBufferPointer<UInt8>) -> Int? {
        let start: Int
        if hasPrefix(text, "https://") {
            start = 8
        } else if hasPrefix(text, "http://") {
            start = 7
        } else {
            return nil
        }
        var end = start
        while end < text.count {
            let byte = text[end]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            end += 1
        }
        // An empty authority ("http:///x") is Foundation's to judge.
        return end == start ? nil : end
    }

    /// Whether `text` starts with the ASCII `prefix`, compared byte by byte.
    ///
    /// perf: not the generic `starts(with:)`, as this runs per request;
    /// BENCHMARKS.md, "Why the hot paths look as they do".
    package static func hasPrefix(_ text: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard text.count >= count else { return false }
        let start = prefix.utf8Start
        for index in 0..<count where text[index] != start[index] { return false }
        return true
    }

    /// Whether `text` starts with `prefix`, byte by byte.
    package static func hasPrefix(_ text: UnsafeBufferPointer<UInt8>, _ prefix: [UInt8]) -> Bool {
        guard text.count >= prefix.count else { return false }
        for index in prefix.indices where text[index] != prefix[index] { return false }
        return true
    }

    /// Which bytes may appear as they are: unreserved and reserved characters except `%` and
    /// brackets (`.`, `?` and `#` are checked by ``isPlain(_:)`` itself).
    private static let plainBytes: [Bool] = (0..<256).map { byte in
        let scalar = Unicode.Scalar(UInt8(byte))
        return (scalar.properties.isASCIIHexDigit || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar))
            || "-_~!$&'()*+,;=:@/.?#".unicodeScalars.contains(scalar)
    }

    /// Printable ASCII that needs no percent-encoding and no normalising (see ``plainBytes``),
    /// at most one `#`, and no dot segment (`/.` anywhere before the query) in the path.
    private static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var previous: UInt8 = 0
        var inPath = true
        var sawFragment = false
        let plain = plainBytes
        for byte in bytes {
            guard plain[Int(byte)] else { return false }
            switch byte {
            case UInt8(ascii: "."):
                if inPath && previous == UInt8(ascii: "/") { return false }
            case UInt8(ascii: "?"):
                inPath = false
            case UInt8(ascii: "#"):
                if sawFragment { return false }
                sawFragment = true
                inPath = false
            default:
                break
            }
            previous = byte
        }
        return true
    }
}
