/// How strictly a HAL document is read.
public struct HALParsingOptions: Sendable, Hashable {
    /// What happens to a link that breaks the HAL rules (no `href`, `templated: "yes"`, a
    /// number where a link object should be).
    public enum MalformedLinkPolicy: Sendable, Hashable {
        /// Leave the link out and record it in ``Links/problems`` (and
        /// ``HALResource/problems``); following that relation later fails with the recorded
        /// error. The default: one broken link the caller never follows does not make the
        /// whole document unreadable, and nothing disappears unnoticed.
        case report
        /// Throw the first malformed link as a ``HALDocumentError``. A malformed `Link` header
        /// field is still only reported: the header is not the document.
        case fail
    }

    /// What happens to malformed links. Structural problems (a root that is not an object,
    /// `_links` or `_embedded` that is not an object) always throw.
    public var malformedLinks: MalformedLinkPolicy
    /// Limits for the JSON underneath, such as the nesting depth.
    public var json: JSONParsingOptions

    /// Creates options.
    public init(malformedLinks: MalformedLinkPolicy = .report, json: JSONParsingOptions = JSONParsingOptions()) {
        self.malformedLinks = malformedLinks
        self.json = json
    }
}
