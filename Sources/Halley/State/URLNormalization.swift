import Foundation

/// The one spelling of a URL the resource store keys state by (RFC 3986, section 6.2.2,
/// syntax-based normalisation, plus the `http`/`https` scheme rules of 6.2.3): scheme and host
/// lowercased, the scheme's default port dropped, an empty path written `/`, percent-encodings
/// in upper case with unreserved characters decoded, dot segments removed, and no fragment
/// (which never reaches the server). `HTTP://Api.Example.com:443/a/./b/../%7euser#x` and
/// `https://api.example.com/a/~user` are the same state.
enum URLNormalization {
    /// `url`, absolute, in its normal form; `url` itself when it cannot be parsed into parts.
    static func normalized(_ url: URL) -> URL {
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
