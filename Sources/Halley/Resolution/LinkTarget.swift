import Foundation

/// Where a link points: its href, expanded when templated (RFC 6570), resolved against a
/// base URL (RFC 3986). The one place every follow, page turn and action computes it.
enum LinkTarget {
    static func url(
        of link: Link, base: URL?, variables: [String: TemplateValue], includePath: String? = nil,
        origin: URLResolution.OriginPrefix? = nil
    ) throws(HalleyError) -> URL {
        try url(
            href: link.href, isTemplated: link.isTemplated, base: base, variables: variables, includePath: includePath,
            origin: origin)
    }

    /// ``url(of:base:variables:includePath:origin:)`` for a link's `href` and ``Link/isTemplated``
    /// as read already.
    static func url(
        href written: String, isTemplated: Bool, base: URL?, variables: [String: TemplateValue],
        includePath: String? = nil, origin: URLResolution.OriginPrefix? = nil
    ) throws(HalleyError) -> URL {
        var href = written
        if isTemplated {
            do {
                href = try URITemplate(written).expand(variables)
            } catch {
                throw HalleyError(
                    code: .invalidTemplate, includePath: includePath, url: base,
                    message: "cannot expand link template \"\(written)\": \(error.message)",
                    underlying: error)
            }
        }
        guard let url = resolved(href, base, origin) else {
            throw HalleyError(
                code: .invalidURL, includePath: includePath, url: base,
                message: "href \"\(href)\" is not a valid URL")
        }
        return url
    }

    /// `href` resolved against `base` (``URLResolution/resolve(_:against:)``), `nil` unless it
    /// is a URL with a scheme. Plainly joined text starts with `http://` or `https://`, so a
    /// URL made of it has its scheme without asking: `URL.scheme` parses the string's scheme
    /// anew on every call, several hundred instructions per followed link. `origin`, when
    /// given, is `base`'s (``URLResolution/OriginPrefix``).
    private static func resolved(_ href: String, _ base: URL?, _ origin: URLResolution.OriginPrefix?) -> URL? {
        let joined = origin.map { URLResolution.joined(href, $0) } ?? URLResolution.joined(href, base)
        if let joined { return URL(string: joined) }
        guard let url = URL(string: href, relativeTo: base)?.absoluteURL, url.scheme != nil else { return nil }
        return url
    }
}
