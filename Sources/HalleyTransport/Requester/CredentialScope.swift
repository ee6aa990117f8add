import Foundation
import HalleyHAL

/// Which header fields carry credentials, and which origins may receive them: the one rule
/// "may this header go to this URL" of every request, carried with it
/// (``ResourceRequest/credentialHeaders`` and ``ResourceRequest/trustedOrigins`` read and
/// write it).
///
/// The pipeline filters each request's headers by it, every requester that follows redirects
/// drops the credentials by it (through ``RedirectChain``), and the cache keys its entries by
/// the values of its names. `Authorization`, `Cookie` and `Proxy-Authorization` are always
/// among the names, so no copy of the rule can forget them.
package struct CredentialScope: Sendable, Hashable {
    /// The names every scope counts as credentials, lowercased.
    package static let defaultHeaderNames: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    /// The scope of a request built without one: the default names; no origin yet, so only
    /// the request's own once ``anchored(at:)`` (a stored value, so requests share its sets).
    static let unanchored = CredentialScope(headerNames: [], trustedOrigins: [])

    /// Lowercased names of the headers that carry credentials, the defaults included.
    package var headerNames: Set<String> { storage.headerNames }
    /// The origins that may receive them; empty until ``anchored(at:)`` names the request's own.
    var trustedOrigins: Set<Origin> { storage.trustedOrigins }

    /// One reference: every request of a call carries the call's scope, and a request is
    /// copied several times on its way, so a copy costs one retain rather than three.
    private let storage: Storage

    private final class Storage: Sendable {
        let headerNames: Set<String>
        let trustedOrigins: Set<Origin>
        /// The trusted origins as URL text (`https://api.example.com`), for the common case of
        /// a URL written the way its origin prints: the pipeline asks for every request it builds.
        let trustedPrefixes: [[UInt8]]

        init(headerNames: Set<String>, trustedOrigins: Set<Origin>) {
            self.headerNames = headerNames
            self.trustedOrigins = trustedOrigins
            trustedPrefixes = trustedOrigins.compactMap { $0.urlPrefix.map { Array($0.utf8) } }
        }
    }

    /// A scope of `headerNames` (any case; the defaults are added) trusting `trustedOrigins`.
    package init(headerNames: some Sequence<String>, trustedOrigins: Set<Origin>) {
        var names = Self.defaultHeaderNames
        for name in headerNames { names.insert(name.lowercased()) }
        storage = Storage(headerNames: names, trustedOrigins: trustedOrigins)
    }

    /// This scope with `names` (any case) among its credentials.
    func adding(headerNames names: Set<String>) -> CredentialScope {
        guard !names.isEmpty else { return self }
        return CredentialScope(headerNames: headerNames.union(names), trustedOrigins: trustedOrigins)
    }

    /// This scope, trusting `url`'s origin when it trusts none yet: a request that names no
    /// trusted origins trusts its own.
    func anchored(at url: URL) -> CredentialScope {
        guard trustedOrigins.isEmpty else { return self }
        return CredentialScope(headerNames: headerNames, trustedOrigins: [Origin(url)])
    }

    /// Whether a field named `name` (any case) carries credentials.
    package func isCredential(_ name: String) -> Bool {
        headerNames.contains(name.lowercased())
    }

    /// Whether `url`'s origin may receive the credentials.
    package func trusts(_ url: URL) -> Bool {
        trusts(LazyURL(url))
    }

    /// ``trusts(_:)`` for the URL the engine carries: one a trusted origin's text starts is
    /// never parsed.
    func trusts(_ location: LazyURL) -> Bool {
        // A URL that starts with a trusted origin's text and then ends its authority has that
        // origin; anything else (other case, explicit default port, user info) is parsed.
        var text = location.text
        let plainlyTrusted = text.withUTF8 { text in
            storage.trustedPrefixes.contains { prefix in
                guard URLResolution.hasPrefix(text, prefix) else { return false }
                guard prefix.count < text.count else { return true }
                let next = text[prefix.count]
                return next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#")
            }
        }
        return plainlyTrusted || (!trustedOrigins.isEmpty && trustedOrigins.contains(Origin(location.url)))
    }

    /// The rule itself: whether a field named `name` may go to `url`.
    func allows(_ name: String, to url: URL) -> Bool {
        !isCredential(name) || trusts(url)
    }

    /// ``allows(_:to:)`` for the URL the engine carries.
    package func allows(_ name: String, to location: LazyURL) -> Bool {
        !isCredential(name) || trusts(location)
    }

    // The prefixes follow from the origins: equality and hashing leave them out.
    package static func == (lhs: CredentialScope, rhs: CredentialScope) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.headerNames == rhs.headerNames && lhs.trustedOrigins == rhs.trustedOrigins)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(headerNames)
        hasher.combine(trustedOrigins)
    }
}
