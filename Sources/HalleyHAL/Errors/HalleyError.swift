import Foundation

/// Why a call, or one relationship of it, failed: what happened, which include path and
/// which URL.
///
/// ``description`` is the developer's sentence, for logs; `localizedDescription`
/// (``errorDescription``, with ``failureReason`` and ``recoverySuggestion``) is what an app
/// shows its user: what failed and the host, no URL path or query, no JSON, no body.
///
/// ```swift
/// do {
///     _ = try await manager.resource(from: url, includes: ["[contacts].website"])
/// } catch let error as HalleyError {
///     error.code          // .http
///     error.includePath   // "[contacts].website"
///     error.url           // https://api.example.com/websites/9
///     error.httpError?.status   // 404
/// }
/// ```
public struct HalleyError: Error, Sendable, CustomStringConvertible {
    /// What happened. Open for new codes, so switch with a `default`.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The server answered with a non-2xx status; see ``HalleyError/httpError``.
        public static let http = Code(rawValue: "http")
        /// The request did not complete (connection refused, timeout, DNS).
        public static let transport = Code(rawValue: "transport")
        /// The body is not a usable HAL document; see ``HalleyError/documentError``.
        public static let invalidDocument = Code(rawValue: "invalidDocument")
        /// A link or root template could not be parsed or expanded.
        public static let invalidTemplate = Code(rawValue: "invalidTemplate")
        /// An href does not make a URL.
        public static let invalidURL = Code(rawValue: "invalidURL")
        /// A link uses a scheme the requester does not fetch (e.g. `file:` over HTTP).
        public static let unsupportedScheme = Code(rawValue: "unsupportedScheme")
        /// A to-one relation has several links and the include does not pick one by name.
        public static let ambiguousRelation = Code(rawValue: "ambiguousRelation")
        /// The link of an included relation is malformed; see ``HalleyError/documentError``.
        public static let malformedLink = Code(rawValue: "malformedLink")
        /// An include path is malformed or conflicts with another.
        public static let invalidInclude = Code(rawValue: "invalidInclude")
        /// A limit of the call was exceeded (requests per call, include depth).
        public static let limitExceeded = Code(rawValue: "limitExceeded")
        /// The merged document could not be decoded into the requested model.
        public static let decoding = Code(rawValue: "decoding")
        /// A request attempt or the whole call ran out of time.
        public static let timeout = Code(rawValue: "timeout")
        /// A validator rejected a response.
        public static let validation = Code(rawValue: "validation")
        /// A `next` link pointed back to a page already read.
        public static let paginationCycle = Code(rawValue: "paginationCycle")
        /// A page fetched by number for random access is not the page asked for (its `page`
        /// metadata names another number or size): the server ignores the page parameter.
        public static let pageMismatch = Code(rawValue: "pageMismatch")
        /// A follow chain asked for a relation the resource does not have.
        public static let missingRelation = Code(rawValue: "missingRelation")
        /// A HAL-FORMS template asked for by key is not in the resource (the message lists
        /// the keys it has).
        public static let missingForm = Code(rawValue: "missingForm")
        /// Values given to a HAL-FORMS template break its constraints; nothing was sent.
        /// ``HalleyError/formValidationError`` lists every failing property and rule.
        public static let formValidation = Code(rawValue: "formValidation")
        /// A HAL-FORMS template asks for a request body in a media type Halley cannot
        /// write (it writes `application/json`, `+json` types and
        /// `application/x-www-form-urlencoded`); nothing was sent.
        public static let unsupportedContentType = Code(rawValue: "unsupportedContentType")
        /// A write through a ``ResourceHandle`` asked for `If-Match` (``WriteOptions/ifMatch``)
        /// but the store holds no `ETag` for the resource; nothing was sent.
        public static let missingValidator = Code(rawValue: "missingValidator")
        /// A value given to Halley cannot be used: a refresh interval that is not positive, an
        /// expected state that is no HAL document or a merge patch that is no JSON object;
        /// nothing was sent.
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// What happened.
    public let code: Code
    /// The include path of the failed relationship; `nil` for the root.
    public let includePath: String?
    /// The URL involved, when there is one.
    public let url: URL?
    /// The developer's sentence, without the include path and URL that ``description`` adds.
    public let message: String
    /// The error underneath: ``HTTPError``, ``HALDocumentError``, ``URITemplateError``,
    /// ``IncludePathError``, `DecodingError`, ``TransportError``, or a requester's own error.
    public let underlying: (any Error)?

    /// Creates an error.
    public init(
        code: Code, includePath: String? = nil, url: URL? = nil, message: String, underlying: (any Error)? = nil
    ) {
        self.code = code
        self.includePath = includePath
        self.url = url
        self.message = message
        self.underlying = underlying
    }

    /// An ``Code/invalidInclude`` error for a malformed or conflicting include path: the
    /// path is ``includePath``, so the message names only the problem and its offset.
    package init(_ error: IncludePathError) {
        self.init(code: .invalidInclude, includePath: error.path, message: error.location, underlying: error)
    }

    /// This error, saying how many attempts ran when there were several.
    package func after(attempts: Int) -> HalleyError {
        guard attempts > 1 else { return self }
        return HalleyError(
            code: code, includePath: includePath, url: url, message: "\(message) (after \(attempts) attempts)",
            underlying: underlying)
    }

    /// This error at another include path: a document shared by several branches fails at
    /// each of their places.
    package func at(includePath: String?) -> HalleyError {
        HalleyError(code: code, includePath: includePath, url: url, message: message, underlying: underlying)
    }

    /// The document error, when ``code`` is ``Code/invalidDocument`` or ``Code/malformedLink``.
    public var documentError: HALDocumentError? { underlying as? HALDocumentError }

    /// `message (include path \"p\", URL u)`.
    public var description: String {
        var context: [String] = []
        if let includePath { context.append("include path \"\(includePath)\"") }
        if let url { context.append("URL \(url.absoluteString)") }
        return context.isEmpty ? message : "\(message) (\(context.joined(separator: ", ")))"
    }
}
