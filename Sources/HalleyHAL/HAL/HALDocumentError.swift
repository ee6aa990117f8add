import Foundation

/// Why a body is not a usable HAL document, and where in it.
///
/// ```swift
/// do { _ = try HALResource(parsing: body) }
/// catch let error as HALDocumentError {
///     error.code   // .missingHref
///     error.path   // "$._links.contacts[1]"
/// }
/// ```
public struct HALDocumentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong. Open for new codes, so switch with a `default`.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The body is not JSON; ``HALDocumentError/jsonError`` has the details.
        public static let invalidJSON = Code(rawValue: "invalidJSON")
        /// The body holds bytes that are not UTF-8.
        public static let invalidUTF8 = Code(rawValue: "invalidUTF8")
        /// The body nests arrays and objects deeper than the limit.
        public static let nestingTooDeep = Code(rawValue: "nestingTooDeep")
        /// The top-level value (or an embedded resource) is not an object. An `_embedded`
        /// relation holding plain values (Spring's `CollectionModel<String>`) is reported with
        /// this code in ``HALResource/problems`` and kept as data.
        public static let resourceNotObject = Code(rawValue: "resourceNotObject")
        /// `_links` is not an object.
        public static let linksNotObject = Code(rawValue: "linksNotObject")
        /// `_embedded` is not an object.
        public static let embeddedNotObject = Code(rawValue: "embeddedNotObject")
        /// A relation in `_links` holds something other than a link object or an array of them.
        public static let linkNotObject = Code(rawValue: "linkNotObject")
        /// A link object has no `href`.
        public static let missingHref = Code(rawValue: "missingHref")
        /// A link's `href` is not a string.
        public static let hrefNotString = Code(rawValue: "hrefNotString")
        /// A link's `templated` is not `true` or `false`.
        public static let templatedNotBoolean = Code(rawValue: "templatedNotBoolean")
        /// A link's `type`, `name`, `title`, `profile`, `hreflang` or `deprecation` is not a string.
        public static let linkPropertyNotString = Code(rawValue: "linkPropertyNotString")
        /// `_templates` (HAL-FORMS) is not an object.
        public static let templatesNotObject = Code(rawValue: "templatesNotObject")
        /// A template in `_templates` is not an object.
        public static let templateNotObject = Code(rawValue: "templateNotObject")
        /// A template has no `method`.
        public static let missingMethod = Code(rawValue: "missingMethod")
        /// A template property has no `name`, or an empty one.
        public static let missingPropertyName = Code(rawValue: "missingPropertyName")
        /// A member of a template, a property or its options has the wrong type or an
        /// impossible value (`required: "yes"`, `min: "3"`, `step: 0`, `maxLength: -1`). For
        /// `method`, `target`, `contentType` and `properties` the template is left out; other
        /// members are read as the HAL-FORMS draft says and the template kept
        /// (``HALForm/problems``).
        public static let invalidFormMember = Code(rawValue: "invalidFormMember")
        /// A value of the response's `Link` header field (RFC 8288) that cannot be read: a
        /// syntax error, a link without `rel`, a target that is not a URI reference, an
        /// undecodable `title*`. Always reported in ``HALResource/problems``, never thrown: the
        /// document and the header's other links stay. The path names the byte of the field
        /// value where the problem is (`Link header, byte 57`, counted from 0 in its UTF-8, the
        /// fields of a response joined with `", "`).
        public static let invalidLinkHeader = Code(rawValue: "invalidLinkHeader")
        /// Not reported any more: a `Link` value whose `anchor` names another resource is that
        /// resource's well-formed link (RFC 8288, 3.2), left out of this resource's links
        /// without a problem. Kept so code that names it still compiles.
        @available(*, deprecated, message: "a link anchored at another resource is not a problem; it is never reported")
        public static let linkHeaderAnchoredElsewhere = Code(rawValue: "linkHeaderAnchoredElsewhere")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// What is wrong.
    public let code: Code
    /// JSON path of the offending value, e.g. `$._embedded.contacts[2]._links.self`; for a
    /// problem of the `Link` header field, the byte it is at: `Link header, byte 57`.
    public let path: String
    /// A sentence for people.
    public let message: String
    /// The URL the document came from, when known.
    public let url: URL?
    /// The JSON syntax error behind ``Code/invalidJSON``, ``Code/invalidUTF8`` and
    /// ``Code/nestingTooDeep``.
    public let jsonError: JSONParsingError?
    /// The relation a malformed link (or a plain embedded value) belongs to.
    public internal(set) var relation: LinkRelation?
    /// The `name` of a malformed link, when it has a string one. Selecting a link by name
    /// (`rel@name`) skips malformed siblings and fails only on the link it selects.
    public internal(set) var linkName: String?
    /// The key of the HAL-FORMS template a problem belongs to (`default`, `updateEmployee`),
    /// whether the template was left out or kept with a member read as its default; `nil`
    /// for link problems and for an `_templates` that is not an object.
    public internal(set) var templateKey: String?
    /// The `Content-Type` of the response whose body failed to parse, when it named one: a
    /// reply that is not JSON (`text/html` from a login page or a proxy) says so in
    /// ``description`` and in what an app shows (``errorDescription``). `nil` for a body
    /// parsed on its own (``HALResource/init(parsing:url:options:)``) and for problems kept
    /// in ``HALResource/problems``.
    public internal(set) var contentType: String?

    /// Creates an error.
    public init(code: Code, path: String, message: String, url: URL? = nil, jsonError: JSONParsingError? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.url = url
        self.jsonError = jsonError
    }

    /// `message at <path> in <url>`.
    public var description: String {
        url.map { "\(location) in \($0.absoluteString)" } ?? location
    }

    /// `message at <path> (byte n)`: the description without the URL, for messages that name
    /// the URL elsewhere. A reply whose ``contentType`` is not JSON adds it: `… at $ (byte 0)
    /// of a text/html reply`.
    public var location: String {
        var text = "\(message) at \(path)"
        if let jsonError { text += " (byte \(jsonError.byteOffset))" }
        if let type = ErrorWording.mediaType(contentType), !ErrorWording.isJSON(type) {
            text += " of a \(type) reply"
        }
        return text
    }

    init(_ jsonError: JSONParsingError, url: URL?) {
        let code: Code
        switch jsonError.code {
        case .invalidUTF8: code = .invalidUTF8
        case .nestingTooDeep: code = .nestingTooDeep
        default: code = .invalidJSON
        }
        self.init(
            code: code, path: jsonError.path, message: "invalid JSON: \(jsonError.message)", url: url,
            jsonError: jsonError)
    }

    func with(url: URL?) -> HALDocumentError {
        var copy = HALDocumentError(code: code, path: path, message: message, url: url, jsonError: jsonError)
        copy.relation = relation
        copy.linkName = linkName
        copy.templateKey = templateKey
        copy.contentType = contentType
        return copy
    }

    /// This error, naming the `Content-Type` of the response whose body it is about.
    package func with(contentType: String?) -> HALDocumentError {
        var copy = self
        copy.contentType = contentType
        return copy
    }
}
