import Foundation
import HalleyHAL
import HalleyTransport

/// What a response to an unsafe request (`POST`, `PUT`, `PATCH`, `DELETE`) says is out of
/// date: the one rule the response cache and the resource store both follow.
///
/// After a 2xx answer, the target is out of date, and so are the `Location`, the
/// `Content-Location` (RFC 9111, section 4.4) and every `Link: <…>; rel="invalidates"` of the
/// response. A URL named by a header counts only when its origin is trusted (the request's
/// own, or one the call trusts with its credentials): a server can never erase what was
/// learned from another origin. A header value that is not a URL reference is ignored and
/// listed in ``ignored``, never a failure.
struct ResponseInvalidation: Sendable {
    /// A response header value that was not used, and why.
    struct Ignored: Sendable, Hashable {
        let field: String
        let value: String
        let reason: String
    }

    /// The method of the request.
    let method: RequestMethod
    /// The URL the request was sent to.
    let target: URL
    /// Whether the response was a 2xx: only then does anything change.
    let succeeded: Bool
    /// The `Location`, resolved, when trusted.
    let location: URL?
    /// The `Content-Location`, resolved, when trusted.
    let contentLocation: URL?
    /// Every URL out of date, the target first; empty unless ``succeeded``.
    let invalidated: [URL]
    /// Header values left out: unparseable, or naming an untrusted origin.
    let ignored: [Ignored]

    /// The relation type of the `Link` header values that name other out-of-date resources.
    static let invalidatesRelation = "invalidates"

    /// Reads `response`, the answer to `method` at `target`, trusting the target's origin and
    /// whatever `trusts` accepts.
    init(method: RequestMethod, target: URL, response: ResourceResponse, trusts: (URL) -> Bool) {
        self.method = method
        self.target = target
        succeeded = response.isSuccess
        var ignored: [Ignored] = []
        let targetOrigin = Origin(target)
        func trusted(_ field: String, _ value: String, _ url: URL?) -> URL? {
            guard let url, url.scheme != nil, url.host != nil else {
                ignored.append(Ignored(field: field, value: value, reason: "it is not a URL reference"))
                return nil
            }
            guard Origin(url) == targetOrigin || trusts(url) else {
                ignored.append(
                    Ignored(
                        field: field, value: value,
                        reason: "\(Origin(url)) is not an origin this call trusts"))
                return nil
            }
            return url
        }
        let base = response.url
        func header(_ field: String) -> URL? {
            guard let value = response.headers[field] else { return nil }
            return trusted(field, value, URLResolution.resolve(value, against: base))
        }
        location = header("Location")
        contentLocation = header("Content-Location")
        var invalidated: [URL] = []
        if succeeded {
            invalidated.append(target)
            invalidated.append(contentsOf: [location, contentLocation].compactMap { $0 })
            // The value each problem is about is named: a response without a document has
            // nowhere else to say it.
            for field in response.headers where field.name.lowercased() == "link" {
                let (links, problems) = LinkHeader.links(in: field.value, url: base, selfURL: nil)
                for problem in problems {
                    let value = LinkHeader.value(atPath: problem.path, in: field.value)
                    ignored.append(Ignored(field: "Link", value: value, reason: problem.message))
                }
                for (rel, link) in links where rel.rawValue == Self.invalidatesRelation {
                    if let url = trusted("Link", link.href, URL(string: link.href)) { invalidated.append(url) }
                }
            }
        }
        self.invalidated = invalidated
        self.ignored = ignored
    }
}
