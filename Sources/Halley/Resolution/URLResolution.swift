import Foundation

/// Resolves a URI reference against a base URL (RFC 3986, section 5): the one place the
/// library does it, for links, `self` links, redirects and `Location` headers.
///
/// `URL(string:relativeTo:)` followed by `absoluteURL` parses the reference, the base and
/// the result, which was a quarter of the engine's instructions at zero latency. Most hrefs
/// a HAL server writes are absolute (`https://…`) or absolute paths (`/orders/7`) made of
/// plain characters; for those, RFC 3986 resolution is string joining, checked here and
/// parsed once. Everything else (relative paths, dot segments, percent signs, non-ASCII,
/// other schemes) goes through Foundation, so the result is always Foundation's.
enum URLResolution {
    /// `reference` resolved against `base`; `nil` when it is not a usable URL.
    static func resolve(_ reference: String, against base: URL?) -> URL? {
        if let joined = joined(reference, base) { return URL(string: joined) }
        return URL(string: reference, relativeTo: base)?.absoluteURL
    }

    /// `url` made absolute: a URL relative to a chain of bases resolves level by level, each
    /// through ``resolve(_:against:)``.
    static func absolute(_ url: URL) -> URL {
        guard let parent = url.baseURL else { return url }
        return resolve(url.relativeString, against: absolute(parent)) ?? url.absoluteURL
    }

    /// The resolved URL's text when plain joining gives what RFC 3986 resolution gives.
    static func joined(_ reference: String, _ base: URL?) -> String? {
        var reference = reference
        return reference.withUTF8 { bytes -> String? in
            guard let first = bytes.first, isPlain(bytes) else { return nil }
            if first == UInt8(ascii: "/") {
                // An absolute path; "//host" is a network-path reference, left to Foundation.
                guard bytes.count == 1 || bytes[1] != UInt8(ascii: "/"), let base else { return nil }
                var baseText = base.absoluteString
                return baseText.withUTF8 { baseBytes -> String? in
                    guard let end = authorityEnd(of: baseBytes) else { return nil }
                    var joined = [UInt8]()
                    joined.reserveCapacity(end + bytes.count)
                    joined.append(contentsOf: UnsafeBufferPointer(rebasing: baseBytes[..<end]))
                    joined.append(contentsOf: bytes)
                    return String(decoding: joined, as: UTF8.self)
                }
            }
            // An absolute http(s) URL: resolution keeps it as written (no dot segments here).
            return authorityEnd(of: bytes) != nil ? String(decoding: bytes, as: UTF8.self) : nil
        }
    }

    /// Where the authority of `text` ends, for `http://` and `https://` text only.
    private static func authorityEnd(of text: UnsafeBufferPointer<UInt8>) -> Int? {
        let start: Int
        if text.starts(with: "https://".utf8) {
            start = 8
        } else if text.starts(with: "http://".utf8) {
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
