import Foundation
import HalleyHAL
import HalleyTransport

extension HALResource {
    /// Parses the body of a response, with the links of its `Link` header field (RFC 8288)
    /// beside `_links`: the one way the library makes a resource from a response.
    ///
    /// - Throws: ``HALDocumentError`` naming what is wrong in the body and its JSON path, and
    ///   the response's `Content-Type` (``HALDocumentError/contentType``), so that an HTML page
    ///   reads as one. A malformed `Link` header is never thrown; it is listed in ``problems``.
    init(response: ResourceResponse, options: HALParsingOptions) throws(HALDocumentError) {
        do {
            try self.init(parsing: response.body, location: response.location, options: options)
        } catch {
            throw error.with(contentType: response.headers["Content-Type"])
        }
        // Most responses have no Link field: then this lookup is all it costs.
        guard let field = response.headers["Link"] else { return }
        self = addingLinks(fromHeader: field, url: response.url)
    }
}
