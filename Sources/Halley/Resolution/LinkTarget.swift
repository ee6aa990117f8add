import Foundation

/// Where a link points: its href, expanded when templated (RFC 6570), resolved against a
/// base URL (RFC 3986). The one place every follow, page turn and action computes it.
enum LinkTarget {
    static func url(
        of link: Link, base: URL?, variables: [String: TemplateValue], includePath: String? = nil
    ) throws(HalleyError) -> URL {
        var href = link.href
        if link.isTemplated {
            do {
                href = try URITemplate(link.href).expand(variables)
            } catch {
                throw HalleyError(
                    code: .invalidTemplate, includePath: includePath, url: base,
                    message: "cannot expand link template \"\(link.href)\": \(error.message)",
                    underlying: error)
            }
        }
        guard let url = URLResolution.resolve(href, against: base), url.scheme != nil else {
            throw HalleyError(
                code: .invalidURL, includePath: includePath, url: base,
                message: "href \"\(href)\" is not a valid URL")
        }
        return url
    }
}
