import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionRequester {
    /// How a requester's own session answers the challenges other than server trust: a `401`
    /// (`WWW-Authenticate`), a proxy's `407`, a server asking for a client certificate.
    ///
    /// By default none is answered: the `401` is returned as the response at once, as
    /// ``CurlRequester`` and `URLSessionRequester` on Linux return it, so
    /// ``ResourceManager/Configuration/refreshCredentials`` or your own code decides what to
    /// send. Only the proxy credentials of a ``ProxyConfiguration`` are given, to the proxy,
    /// once.
    ///
    /// ```swift
    /// // An intranet API behind Kerberos single sign-on: let the system answer (macOS).
    /// let requester = URLSessionRequester(configuration: .default, challenges: .systemDefault)
    /// ```
    public enum ChallengeHandling: Sendable, Hashable {
        /// Answer no challenge: URLSession goes on without a credential and the `401` (or the
        /// handshake without a client certificate) is what the caller gets. The default.
        case returnResponse
        /// URLSession's default handling, with the configuration's credential storage kept
        /// (`.default`'s is the shared one): on Apple platforms the system may answer with a
        /// stored password, Kerberos or NTLM single sign-on, or a client identity it prefers
        /// for the host. On Linux FoundationNetworking has none of these, and the `401` is
        /// returned as with ``returnResponse``.
        case systemDefault
    }
}

/// How the delegate of a requester's own session answers, on Apple platforms, a challenge
/// other than server trust (server trust is ``TrustEvaluator``'s). A decision of its own,
/// on names and counts FoundationNetworking declares too, so Linux tests it: on Linux the
/// delegate answers every challenge with the response it already holds instead, since
/// FoundationNetworking raises the challenge only once the whole `401` has arrived.
enum ChallengeAnswer {
    /// The disposition and credential for a challenge on a proxy's protection space or an
    /// origin's, after `previousFailureCount` failed answers.
    ///
    /// - `.useCredential` with the proxy's credentials, the first time a proxy asks;
    /// - `.performDefaultHandling` when the caller asked for ``URLSessionRequester/ChallengeHandling/systemDefault``;
    /// - `.rejectProtectionSpace` otherwise: URLSession then tries the next scheme the server
    ///   offers, if any, and finally goes on without a credential, so the `401` or `407`
    ///   comes back. (`.cancelAuthenticationChallenge` would fail the task instead, and
    ///   `.performDefaultHandling` may answer with the system's stored credentials.)
    static func disposition(
        isProxy: Bool, previousFailureCount: Int, proxyCredentials: ProxyConfiguration.Credentials?,
        handling: URLSessionRequester.ChallengeHandling
    ) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        if isProxy, let proxyCredentials, previousFailureCount == 0 {
            let credential = URLCredential(
                user: proxyCredentials.user, password: proxyCredentials.password, persistence: .forSession)
            return (.useCredential, credential)
        }
        return (handling == .systemDefault ? .performDefaultHandling : .rejectProtectionSpace, nil)
    }
}
