import Foundation
import Halley

/// One request of a redirect chain, and the rules that make the next one: the same rules as
/// Halley's own requesters, so an application sees the same behaviour whichever it picks.
struct Hop: Sendable {
    var url: URL
    var method: Halley.HTTPMethod
    var headers: Halley.HTTPHeaders
    var body: Data?

    /// The next hop when `status` and `location` make a redirect this requester follows;
    /// `nil` when the response is the answer.
    ///
    /// - Throws: `RedirectError` for a `Location` that is not a URL or leaves HTTP.
    func redirect(status: Int, location: String?) throws(RedirectError) -> Hop? {
        guard [301, 302, 303, 307, 308].contains(status), let location else { return nil }
        guard var target = URL(string: location, relativeTo: url)?.absoluteURL,
            target.host != nil || !["http", "https"].contains(target.scheme?.lowercased() ?? "")
        else {
            throw RedirectError(url: url, reason: .invalidLocation(location))
        }
        let scheme = target.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw RedirectError(url: url, reason: .unsupportedScheme(scheme))
        }
        // A Location without a fragment keeps the request's (RFC 9110, 10.2.2).
        if target.fragment == nil, let fragment = url.fragment,
            let withFragment = URL(string: target.absoluteString + "#" + fragment)
        {
            target = withFragment
        }
        var next = self
        next.url = target
        // 303 turns any method but HEAD into GET; 301 and 302 turn POST into GET, as browsers
        // do (RFC 9110, 15.4); 307 and 308 keep method and body.
        if (status == 303 && method != .head) || ([301, 302].contains(status) && method == .post) {
            next.method = .get
            next.body = nil
            next.removeHeaders(named: [
                "content-type", "content-length", "content-encoding", "content-language", "content-location",
                "transfer-encoding",
            ])
        }
        return next
    }

    /// Removes every field whose lowercased name is in `names`.
    mutating func removeHeaders(named names: Set<String>) {
        guard headers.contains(where: { names.contains($0.name.lowercased()) }) else { return }
        headers = Halley.HTTPHeaders(
            headers.fields.filter { !names.contains($0.name.lowercased()) }.map { ($0.name, $0.value) })
    }
}
