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
    /// - Parameter credentialHeaders: Header names removed when a redirect leaves the trusted
    ///   origins, in addition to each request's own.
    public static func make(
        credentialHeaders: Set<String> = URLSessionRequester.defaultCredentialHeaders
    ) -> any RequesterInterface & Sendable {
        #if os(Linux)
            if let curl = try? CurlRequester(credentialHeaders: credentialHeaders) { return curl }
        #endif
        return URLSessionRequester(credentialHeaders: credentialHeaders)
    }
}
