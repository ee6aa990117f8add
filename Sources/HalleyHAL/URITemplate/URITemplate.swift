/// A parsed RFC 6570 URI Template, ready to be expanded many times.
///
/// Parsing validates the whole template once (all four levels of
/// RFC 6570, every operator, prefix and explode modifiers) and keeps a
/// compact description of it, so each ``expand(_:)`` call only looks up
/// values and encodes them. HAL `templated` links use this type.
///
/// ```swift
/// let template = try URITemplate("/orders{/id}{?page,tags*}")
/// template.variableNames    // ["id", "page", "tags"]
/// let uri = try template.expand(["id": 42, "tags": ["new", "paid"]])
/// // "/orders/42?tags=new&tags=paid"
/// ```
///
/// Two templates are equal when their text is equal.
public struct URITemplate: Sendable, Hashable, CustomStringConvertible {
    /// The template text exactly as it was given to ``init(_:)``.
    public let template: String

    /// The names of the variables the template refers to, in order of first
    /// appearance and without duplicates.
    ///
    /// Names are reported as written; a name containing `%XX` triplets is not
    /// decoded (RFC 6570 section 2.3), and the same text is the key that
    /// ``expand(_:)`` looks up.
    public let variableNames: [String]

    private let program: URITemplateProgram

    /// Parses and validates a URI Template.
    ///
    /// Literal text that is not allowed in a URI, such as spaces or
    /// non-ASCII characters, is percent-encoded as UTF-8 rather than
    /// rejected (RFC 6570 section 3.1); existing `%XX` triplets are kept.
    ///
    /// - Parameters:
    ///   - template: The template text, e.g. `"/search{?q,lang}"`.
    /// - Throws: A ``URITemplateError`` when the text does not follow the
    ///   RFC 6570 section 2 grammar, e.g. an unclosed `{`, a stray `}`, a
    ///   reserved operator such as `{=x}`, an invalid variable name or an
    ///   invalid prefix such as `{x:0}`. Its ``URITemplateError/offset`` is
    ///   the `Character` offset of the problem.
    public init(_ template: String) throws(URITemplateError) {
        (program, variableNames) = try URITemplateParser(template).parse()
        self.template = template
    }

    /// Expands the template with the given variable values (RFC 6570
    /// section 3).
    ///
    /// Variables that are missing from `variables`, or that are
    /// ``TemplateValue/undefined``, an empty list or an empty associative
    /// array, are skipped together with their separators; an empty string
    /// is defined and does expand. The result is always an ASCII string:
    /// values are UTF-8 percent-encoded as their operator requires.
    ///
    /// - Parameters:
    ///   - variables: The values to substitute, keyed by variable name.
    /// - Returns: The expanded URI reference.
    /// - Throws: A ``URITemplateError`` with code
    ///   ``URITemplateError/Code/prefixOnCompositeValue`` when a varspec with
    ///   a prefix modifier, such as `{keys:3}`, receives a list or an
    ///   associative array (RFC 6570 section 2.4.1).
    public func expand(_ variables: [String: TemplateValue]) throws(URITemplateError) -> String {
        try URITemplateExpander(template: template, program: program, variables: variables).expand()
    }

    /// The template text.
    public var description: String {
        template
    }

    /// Compares templates by their text; the parsed form is derived from it.
    ///
    /// - Parameters:
    ///   - lhs: A template.
    ///   - rhs: Another template.
    /// - Returns: Whether both were created from the same text.
    public static func == (lhs: URITemplate, rhs: URITemplate) -> Bool {
        lhs.template == rhs.template
    }

    /// Hashes the template text, consistently with ``==(_:_:)``.
    ///
    /// - Parameters:
    ///   - hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(template)
    }
}
