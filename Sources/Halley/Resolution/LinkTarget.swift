import Foundation
import HalleyHAL

/// Where a link points: its href, expanded when templated (RFC 6570), resolved against a
/// base URL (RFC 3986). The one place every follow, page turn and action computes it.
enum LinkTarget {
    /// The absolute URL of a link's `href` and ``Link/isTemplated``, as the engine carries it.
    /// `origin`, when given, is `base`'s (``URLResolution/OriginPrefix``).
    static func location(
        href written: String, isTemplated: Bool, base: LazyURL?, variables: [String: TemplateValue],
        includePath: String? = nil, origin: URLResolution.OriginPrefix? = nil
    ) throws(HalleyError) -> LazyURL {
        var href = written
        if isTemplated {
            do {
                href = try URITemplate(written).expand(variables)
            } catch {
                throw HalleyError(
                    code: .invalidTemplate, includePath: includePath, url: base?.url,
                    message: "cannot expand link template \"\(written)\": \(error.message)",
                    underlying: error)
            }
        }
        guard let location = resolved(href, base, origin) else {
            throw HalleyError(
                code: .invalidURL, includePath: includePath, url: base?.url,
                message: "href \"\(href)\" is not a valid URL")
        }
        return location
    }

    /// `href` resolved against `base` (``URLResolution/resolve(_:against:)``), `nil` unless it
    /// is a URL with a scheme. Plainly joined text is verbatim URL text starting with `http://`
    /// or `https://` (``URLResolution/joined(_:_:)``): it is carried as it is, with its scheme
    /// known, and parsed only if something asks for its `URL`. `origin`, when given, is
    /// `base`'s (``URLResolution/OriginPrefix``).
    private static func resolved(_ href: String, _ base: LazyURL?, _ origin: URLResolution.OriginPrefix?)
        -> LazyURL?
    {
        URLResolution.resolve(href, against: base, origin: origin, requiringScheme: true)
    }
}
