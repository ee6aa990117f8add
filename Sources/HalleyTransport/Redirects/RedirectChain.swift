import Foundation
import HalleyHAL

/// The redirect rules of Halley's requesters, for a requester that follows redirects itself.
///
/// Start the chain from the ``ResourceRequest``, send ``current``, and give the response's
/// status and `Location` to ``follow(status:location:)``: it answers whether ``current`` is
/// now the next hop to send, or the response is the answer. ``CurlRequester`` and the
/// server-side example's `AsyncHTTPClientRequester` follow redirects this way, and
/// ``URLSessionRequester`` answers URLSession's redirect callback with ``current``, so a
/// redirect means the same whichever requester runs it:
///
/// - 301, 302, 303, 307 and 308 with a `Location` are followed; a `Location` is resolved
///   against the hop it came from, and keeps that hop's fragment when it has none
///   (RFC 9110, 10.2.2);
/// - 303 turns any method but `HEAD` into `GET`, 301 and 302 turn `POST` into `GET` (as
///   browsers do, RFC 9110, 15.4), and a hop that becomes a `GET` loses its body and the
///   fields that described it (`Content-Type`, `Content-Length`, `Content-Encoding`,
///   `Content-Language`, `Content-Location`, `Transfer-Encoding`); every other hop keeps
///   method, body and fields (307 and 308 always do);
/// - a target that is not `http` or `https`, or a `Location` that is not a URL, is a
///   ``RedirectError``, and so is one redirect more than `maxRedirects`;
/// - a caller's `Host` does not follow to another origin, and the credential headers
///   (`Authorization`, `Cookie`, `Proxy-Authorization`, the request's
///   ``ResourceRequest/credentialHeaders`` and the requester's own) do not follow outside
///   ``ResourceRequest/trustedOrigins`` (only the request's own origin when that is empty).
///   Once dropped, they stay dropped, even if a later hop comes back.
///
/// ```swift
/// var chain = RedirectChain(request, maxRedirects: 10)
/// while true {
///     let (status, location) = try await send(chain.current)  // your transport
///     guard try chain.follow(status: status, location: location) else { break }
/// }
/// ```
public struct RedirectChain: Sendable {
    /// One request of the chain: what to send next.
    public struct Hop: Sendable, Equatable {
        /// Where to send it. Kept as text and parsed on each read, as ``ResourceRequest/url`` is.
        public var url: URL {
            get { location.url }
            set { location = LazyURL(newValue) }
        }
        /// ``url`` as the engine carries it: a requester sends its text, parsing nothing.
        var location: LazyURL
        /// With which method.
        public var method: RequestMethod
        /// With which header fields.
        public var headers: HeaderFields
        /// With which body, if any.
        public var body: Data?

        /// Removes every field whose lowercased name is in `names`.
        mutating func removeHeaders(named names: Set<String>) {
            guard headers.contains(where: { names.contains($0.name.lowercased()) }) else { return }
            headers = HeaderFields(
                headers.fields.filter { !names.contains($0.name.lowercased()) }.map { ($0.name, $0.value) })
        }
    }

    /// The hop to send now: the request itself, then each redirect's target.
    public private(set) var current: Hop
    /// How many redirects have been followed.
    public private(set) var redirects = 0
    /// How many redirects in a row are followed before ``RedirectError/Reason/tooManyRedirects(limit:)``.
    public let maxRedirects: Int

    // What the credential rule needs, kept as given: most requests never redirect, so the
    // scope it applies is completed on the first redirect, not for every request.
    private let firstURL: LazyURL
    private let requestScope: CredentialScope
    private let requesterCredentialHeaders: Set<String>
    /// The request's scope, anchored at its URL and with the requester's names, once built.
    private var completedScope: CredentialScope?

    /// A chain starting with `request`.
    ///
    /// - Parameters:
    ///   - request: The first hop, with the credential headers and trusted origins it names.
    ///   - credentialHeaders: Fields the requester itself treats as credentials, besides the
    ///     request's ``ResourceRequest/credentialHeaders`` (any case).
    ///   - maxRedirects: How many redirects in a row are followed.
    public init(_ request: ResourceRequest, credentialHeaders: Set<String> = [], maxRedirects: Int) {
        current = Hop(location: request.location, method: request.method, headers: request.headers, body: request.body)
        self.maxRedirects = maxRedirects
        firstURL = request.location
        requestScope = request.credentialScope
        requesterCredentialHeaders = credentialHeaders
    }

    /// The credential scope every hop is held to: the request's, its own origin trusted when it
    /// names none, with the requester's names.
    var scope: CredentialScope {
        mutating get {
            if let completedScope { return completedScope }
            let scope = requestScope.anchored(at: firstURL.url).adding(headerNames: requesterCredentialHeaders)
            completedScope = scope
            return scope
        }
    }

    /// Takes the answer to ``current``: `true` when it was a redirect to follow and
    /// ``current`` is now the next hop, `false` when the answer is the response.
    ///
    /// - Parameters:
    ///   - status: The response's status code.
    ///   - location: Its `Location` field, if any.
    /// - Throws: ``RedirectError`` for a `Location` that is not a URL or leaves HTTP, or one
    ///   redirect more than ``maxRedirects``.
    ///
    /// `location` is read only for a redirect status: most responses are not redirects, and
    /// finding a field scans every field of the response.
    public mutating func follow(status: Int, location: @autoclosure () -> String?) throws(RedirectError) -> Bool {
        guard [301, 302, 303, 307, 308].contains(status), let location = location() else { return false }
        let from = current.url
        guard var target = URLResolution.resolve(location, against: from),
            target.host != nil || !Self.isHTTP(target)
        else {
            throw RedirectError(url: from, reason: .invalidLocation(location))
        }
        guard Self.isHTTP(target) else {
            throw RedirectError(url: from, reason: .unsupportedScheme(target.scheme?.lowercased() ?? ""))
        }
        redirects += 1
        if redirects > maxRedirects { throw RedirectError(url: from, reason: .tooManyRedirects(limit: maxRedirects)) }
        if target.fragment == nil, let fragment = from.fragment,
            let withFragment = URL(string: target.absoluteString + "#" + fragment)
        {
            target = withFragment
        }
        var next = current
        next.url = target
        if Self.becomesGET(status: status, method: current.method) {
            next.method = .get
            next.body = nil
            next.removeHeaders(named: Self.bodyFields)
        }
        // The server decides the Host of its own origin; a caller's Host was for the first.
        if Origin(target) != Origin(from) { next.removeHeaders(named: ["host"]) }
        let scope = self.scope
        if !scope.trusts(target) { next.removeHeaders(named: scope.headerNames) }
        current = next
        return true
    }

    /// Whether a redirect of `status` turns a request of `method` into a `GET`: 303 any method
    /// but `HEAD`, 301 and 302 a `POST`.
    static func becomesGET(status: Int, method: RequestMethod) -> Bool {
        (status == 303 && method != .head) || ((status == 301 || status == 302) && method == .post)
    }

    /// The fields that describe a body, which a hop that becomes a `GET` no longer has.
    private static let bodyFields: Set<String> = [
        "content-type", "content-length", "content-encoding", "content-language", "content-location",
        "transfer-encoding",
    ]

    private static func isHTTP(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased() ?? ""
        return scheme == "http" || scheme == "https"
    }
}
