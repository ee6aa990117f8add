import Foundation

/// The requester ``ResourceManager`` uses when you give it none.
///
/// On Linux it is ``CurlRequester`` (libcurl through the multi interface: as many
/// connections as the traversal needs, no CPU while waiting, bodies and headers bounded
/// while they arrive), or ``URLSessionRequester`` when libcurl cannot be loaded. On Apple
/// platforms it is ``URLSessionRequester``.
///
/// ```swift
/// let manager = ResourceManager(requester: DefaultRequester.make())   // the same as ResourceManager()
/// let curl = try CurlRequester()                                        // ask for one explicitly
/// let session = URLSessionRequester()
/// ```
public enum DefaultRequester {
    /// A new requester of the platform's default kind.
    ///
    /// ```swift
    /// let requester = DefaultRequester.make(credentialHeaders: ["authorization", "x-api-key"])
    /// ```
    ///
    /// ```swift
    /// let privateAPI = DefaultRequester.make(tls: TLSConfiguration(trustRoots: .systemAnd([.file("ca.pem")])))
    /// ```
    ///
    /// - Parameters:
    ///   - credentialHeaders: Header names removed when a redirect leaves the trusted
    ///     origins, in addition to each request's own.
    ///   - tls: The TLS configuration (see ``TLSConfiguration``).
    ///   - proxy: The proxy rules (see ``ProxyConfiguration``).
    public static func make(
        credentialHeaders: Set<String> = URLSessionRequester.defaultCredentialHeaders,
        tls: TLSConfiguration = .system,
        proxy: ProxyConfiguration = .environment
    ) -> any RequesterInterface & Sendable {
        #if os(Linux)
            if let curl = try? CurlRequester(credentialHeaders: credentialHeaders, tls: tls, proxy: proxy) {
                return curl
            }
        #endif
        return URLSessionRequester(credentialHeaders: credentialHeaders, tls: tls, proxy: proxy)
    }
}
