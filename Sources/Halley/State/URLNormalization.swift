import Foundation
import HalleyHAL

/// The one spelling of a URL the resource store keys state by (RFC 3986, section 6.2.2,
/// syntax-based normalisation, plus the `http`/`https` scheme rules of 6.2.3): scheme and host
/// lowercased, the scheme's default port dropped, an empty path written `/`, percent-encodings
/// in upper case with unreserved characters decoded, dot segments removed, and no fragment
/// (which never reaches the server). `HTTP://Api.Example.com:443/a/./b/../%7euser#x` and
/// `https://api.example.com/a/~user` are the same state.
enum URLNormalization {
    /// `url`, absolute, in its normal form; `url` itself when it cannot be parsed into parts.
    static func normalized(_ url: URL) -> URL {
        if url.baseURL == nil, isNormal(url.absoluteString) { return url }
        let absolute = URLResolution.absolute(url)
        guard var components = URLComponents(url: absolute, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased()
        else { return absolute }
        components.scheme = scheme
        if let host = components.percentEncodedHost { components.percentEncodedHost = host.lowercased() }
        if components.port == 80 && scheme == "http" || components.port == 443 && scheme == "https" {
            components.port = nil
        }
        var path = removingDotSegments(normalizedEncoding(components.percentEncodedPath))
        if path.isEmpty, components.host != nil { path = "/" }
        components.percentEncodedPath = path
        if let query = components.percentEncodedQuery { components.percentEncodedQuery = normalizedEncoding(query) }
        components.fragment = nil
        return components.url ?? absolute
    }

    /// Whether `text` is plainly in normal form already, as nearly every URL a HAL server
    /// writes is: a lowercase `http` or `https` scheme and host with no port, user or
    /// fragment, a path, and no percent sign or dot segment anywhere. Read without parsing;
    /// anything else goes the long way.
    static func isNormal(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            let start: Int
            if URLResolution.hasPrefix(bytes, "https://") {
                start = 8
            } else if URLResolution.hasPrefix(bytes, "http://") {
                start = 7
            } else {
                return false
            }
            var index = start
            // The host: lowercase letters, digits, dots and hyphens, then the path's slash.
            while index < bytes.count, bytes[index] != UInt8(ascii: "/") {
                switch bytes[index] {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."),
                    UInt8(ascii: "-"):
                    index += 1
                default:
                    return false
                }
            }
            guard index > start, index < bytes.count else { return false }
            var previous: UInt8 = 0
            for byte in bytes[index...] {
                if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "#") { return false }
                if byte == UInt8(ascii: "."), previous == UInt8(ascii: "/") { return false }
                previous = byte
            }
            return true
        }
    }

    /// Whether two texts plainly in normal form (``isNormal(_:)``) start with the same
    /// `scheme://host`: their origin, which a normal URL spells one way.
    static func haveOneOrigin(normal first: String, _ second: String) -> Bool {
        var first = first
        var second = second
        return first.withUTF8 { first in
            second.withUTF8 { second in
                let end = originLength(first)
                return end == originLength(second) && first[..<end].elementsEqual(second[..<end])
            }
        }
    }

    /// The length of the `scheme://host` a text in normal form starts with.
    private static func originLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var index = bytes[4] == UInt8(ascii: "s") ? 8 : 7
        while index < bytes.count, bytes[index] != UInt8(ascii: "/") { index += 1 }
        return index
    }

    /// `text` with every percent-encoding in upper case and those of unreserved characters
    /// (letters, digits, `-`, `.`, `_`, `~`) decoded.
    static func normalizedEncoding(_ text: String) -> String {
        guard text.contains("%") else { return text }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = PercentEncoding.hexValue(bytes[index + 1]),
                let low = PercentEncoding.hexValue(bytes[index + 2])
            {
                let byte = high << 4 | low
                if PercentEncoding.isUnreserved(byte) {
                    output.append(byte)
                } else {
                    PercentEncoding.appendEscaped(byte, to: &output)
                }
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// RFC 3986, section 5.2.4.
    static func removingDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if output.count > 1 { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return output.joined(separator: "/")
    }
}
