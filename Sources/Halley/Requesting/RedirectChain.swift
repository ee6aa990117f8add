import Foundation

/// The redirect rules of Halley's requesters, for a requester that follows redirects itself.
///
/// Start the chain from the ``ResourceRequest``, send ``current``, and give the response's
/// status and `Location` to ``follow(status:location:)``: it answers whether ``current`` is
/// now the next hop to send, or the response is the answer. `CurlRequester` and the
/// server-side example's `AsyncHTTPClientRequester` both follow redirects this way, so a
/// redirect means the same whichever requester runs it:
///
/// - 301, 302, 303, 307 and 308 with a `Location` are followed; a `Location` is resolved
///   against the hop it came from, and keeps that hop's fragment when it has none
///   (RFC 9110, 10.2.2);
/// - 303 turns any method but `HEAD` into `GET`, 301 and 302 turn `POST` into `GET` (as
///   browsers and URLSession do, RFC 9110, 15.4), and a hop that becomes a `GET` loses its
///   body and the fields that described it; 307 and 308 keep method and body;
/// - a target that is not `http` or `https`, or a `Location` that is not a URL, is a
///   ``RedirectError``, and so is one redirect more than `maxRedirects`;
/// - a caller's `Host` does not follow to another origin, and the credential headers do not
///   follow outside ``ResourceRequest/trustedOrigins`` (only the request's own origin when
///   that is empty). Once dropped, they stay dropped, even if a later hop comes back.
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
        /// Where to send it.
        public var url: URL
        /// With which method.
        public var method: HTTPMethod
        /// With which header fields.
        public var headers: HTTPHeaders
        /// With which body, if any.
        public var body: Data?

        /// Removes every field whose lowercased name is in `names`.
        mutating func removeHeaders(named names: Set<String>) {
            guard headers.contains(where: { names.contains($0.name.lowercased()) }) else { return }
            headers = HTTPHeaders(
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
    // sets it compares against are built on the first redirect, not for every request.
    private let firstURL: URL
    private let trustedOrigins: Set<Origin>
    private let requesterCredentialHeaders: Set<String>
    private let requestCredentialHeaders: Set<String>

    /// A chain starting with `request`.
    ///
    /// - Parameters:
    ///   - request: The first hop, with the credential headers and trusted origins it names.
    ///   - credentialHeaders: Fields the requester itself treats as credentials, besides the
    ///     request's ``ResourceRequest/credentialHeaders`` (any case).
    ///   - maxRedirects: How many redirects in a row are followed.
    public init(_ request: ResourceRequest, credentialHeaders: Set<String> = [], maxRedirects: Int) {
        current = Hop(url: request.url, method: request.method, headers: request.headers, body: request.body)
        self.maxRedirects = maxRedirects
        firstURL = request.url
        trustedOrigins = request.trustedOrigins
        requesterCredentialHeaders = credentialHeaders
        requestCredentialHeaders = request.credentialHeaders
    }

    /// Takes the answer to ``current``: `true` when it was a redirect to follow and
    /// ``current`` is now the next hop, `false` when the answer is the response.
    ///
    /// - Parameters:
    ///   - status: The response's status code.
    ///   - location: Its `Location` field, if any.
    /// - Throws: ``RedirectError`` for a `Location` that is not a URL or leaves HTTP, or one
    ///   redirect more than ``maxRedirects``.
    public mutating func follow(status: Int, location: String?) throws(RedirectError) -> Bool {
        guard [301, 302, 303, 307, 308].contains(status), let location else { return false }
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
        if (status == 303 && current.method != .head) || ([301, 302].contains(status) && current.method == .post) {
            next.method = .get
            next.body = nil
            next.removeHeaders(named: Self.bodyFields)
        }
        // The server decides the Host of its own origin; a caller's Host was for the first.
        if Origin(target) != Origin(from) { next.removeHeaders(named: ["host"]) }
        let trusted =
            trustedOrigins.isEmpty ? Origin(target) == Origin(firstURL) : trustedOrigins.contains(Origin(target))
        if !trusted {
            next.removeHeaders(
                named: Set(requesterCredentialHeaders.union(requestCredentialHeaders).map { $0.lowercased() }))
        }
        current = next
        return true
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
