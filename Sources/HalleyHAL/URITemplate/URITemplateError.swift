/// An error raised while parsing or expanding an RFC 6570 URI Template.
///
/// Every error carries a machine-readable ``Code``, the template text it
/// concerns, and the position of the problem, so that a caller can point a
/// user (or a log reader) at the exact character that is wrong. Parse errors
/// come from ``URITemplate/init(_:)``; the only expansion-time error is
/// ``Code/prefixOnCompositeValue`` (RFC 6570 section 2.4.1), which depends on
/// the values supplied to ``URITemplate/expand(_:)``.
public struct URITemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A machine-readable category for a ``URITemplateError``.
    ///
    /// Codes are an open set of string constants rather than an enum so that
    /// new categories can be added later without breaking exhaustive
    /// `switch` statements in client code. Compare against the static
    /// constants, e.g. `error.code == .unclosedExpression`.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The stable identifier of the code, e.g. `"unclosedExpression"`.
        public let rawValue: String

        /// Creates a code from its stable identifier.
        ///
        /// - Parameters:
        ///   - rawValue: The identifier; prefer the predefined static constants.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code's identifier, suitable for logs.
        public var description: String { rawValue }

        /// An opening `{` has no matching `}` before the end of the template
        /// or before the next `{` (RFC 6570 section 2.2).
        ///
        /// The offset points at the unmatched `{`.
        public static let unclosedExpression = Code(rawValue: "unclosedExpression")

        /// A `}` appears outside of any expression (RFC 6570 section 2.1).
        public static let unexpectedClosingBrace = Code(rawValue: "unexpectedClosingBrace")

        /// An expression contains no variable, as in `{}` or `{+}`
        /// (RFC 6570 section 2.2 requires at least one varspec).
        public static let emptyExpression = Code(rawValue: "emptyExpression")

        /// The character after `{` is neither an operator nor the start of a
        /// variable name, as in `{$var}` or `{-join|&|x}` (RFC 6570 section 2.2).
        public static let invalidOperator = Code(rawValue: "invalidOperator")

        /// The expression uses one of the operators RFC 6570 section 2.2
        /// reserves for future extensions: `=`, `,`, `!`, `@` or `|`.
        public static let reservedOperator = Code(rawValue: "reservedOperator")

        /// A variable name is missing or contains a character that
        /// RFC 6570 section 2.3 does not allow (spaces, `-`, `~`, a leading,
        /// trailing or doubled `.`, ...), or unexpected text follows a varspec.
        public static let invalidVariableName = Code(rawValue: "invalidVariableName")

        /// A prefix modifier is not a number from 1 to 9999 written without
        /// leading zeros, as in `{var:0}`, `{var:01}`, `{var:10000}` or `{var:}`
        /// (RFC 6570 section 2.4.1).
        ///
        /// The offset points at the first character after the `:`.
        public static let invalidPrefix = Code(rawValue: "invalidPrefix")

        /// A `%` is not followed by two hexadecimal digits, either inside a
        /// variable name (`{%2x}`) or in literal text (RFC 6570 sections 2.1, 2.3).
        public static let invalidPercentEncoding = Code(rawValue: "invalidPercentEncoding")

        /// Literal text contains a control character (U+0000 to U+001F or
        /// U+007F), which RFC 6570 section 2.1 excludes and which has no
        /// sensible meaning in a URI.
        ///
        /// Other characters that the literal grammar excludes, such as spaces
        /// or non-ASCII text, are percent-encoded instead (RFC 6570 section 3.1).
        public static let invalidLiteralCharacter = Code(rawValue: "invalidLiteralCharacter")

        /// A varspec has both a prefix and an explode modifier, as in
        /// `{var:2*}`; RFC 6570 section 2.4 allows at most one.
        public static let conflictingModifiers = Code(rawValue: "conflictingModifiers")

        /// A prefix modifier was applied to a list or associative array value
        /// during expansion, which RFC 6570 section 2.4.1 forbids.
        ///
        /// The offset points at the variable name in the template.
        public static let prefixOnCompositeValue = Code(rawValue: "prefixOnCompositeValue")
    }

    /// The category of the problem.
    public let code: Code

    /// The complete template text in which the problem was found.
    public let template: String

    /// The position of the problem, counted in `Character`s (grapheme
    /// clusters) from the start of ``template``.
    ///
    /// Counting characters rather than bytes keeps the number meaningful when
    /// the template is shown to a person, e.g. under a caret marker.
    public let offset: Int

    /// A human-readable explanation that names the problem, its offset and
    /// the template, e.g. `reserved operator '=' at offset 1 in "{=x}"`.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The category of the problem.
    ///   - template: The template text in which the problem was found.
    ///   - offset: The `Character` offset of the problem within `template`.
    ///   - message: A human-readable explanation.
    public init(code: Code, template: String, offset: Int, message: String) {
        self.code = code
        self.template = template
        self.offset = offset
        self.message = message
    }

    /// The code followed by the message, for logs.
    public var description: String {
        "\(code.rawValue): \(message)"
    }
}

extension URITemplateError {
    /// Builds an error whose position is given as a UTF-8 byte offset, which
    /// is what the byte-oriented parser and expander track; the conversion
    /// to a `Character` offset is only paid for when something goes wrong.
    init(_ code: Code, in template: String, utf8Offset: Int, _ problem: String) {
        let offset = Self.characterOffset(ofUTF8Offset: utf8Offset, in: template)
        self.init(
            code: code,
            template: template,
            offset: offset,
            message: "\(problem) at offset \(offset) in \(template.debugDescription)"
        )
    }

    /// Counts the `Character`s before the one that contains the given byte,
    /// so a byte inside a multi-scalar cluster reports that cluster's offset.
    static func characterOffset(ofUTF8Offset utf8Offset: Int, in template: String) -> Int {
        let utf8 = template.utf8
        let target =
            utf8.index(
                utf8.startIndex,
                offsetBy: utf8Offset,
                limitedBy: utf8.endIndex
            ) ?? utf8.endIndex
        var offset = 0
        var index = template.startIndex
        while index < target {
            let next = template.index(after: index)
            if next > target {
                break
            }
            offset += 1
            index = next
        }
        return offset
    }
}
