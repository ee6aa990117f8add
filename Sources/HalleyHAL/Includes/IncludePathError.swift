/// Why an include path or a set of include paths cannot be used, and where.
///
/// ```swift
/// do { _ = try IncludePlan(["[contacts"]) }
/// catch let error as IncludePathError {
///     error.code    // .unclosedBracket
///     error.path    // "[contacts"
///     error.offset  // 9
/// }
/// ```
public struct IncludePathError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong. Open for new codes, so switch with a `default`.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The path is empty.
        public static let emptyPath = Code(rawValue: "emptyPath")
        /// A segment has no relation name (`a..b`, `[]`, a leading or trailing `.`).
        public static let emptySegment = Code(rawValue: "emptySegment")
        /// `[` without its `]`.
        public static let unclosedBracket = Code(rawValue: "unclosedBracket")
        /// A quoted name without its closing `"`.
        public static let unclosedQuote = Code(rawValue: "unclosedQuote")
        /// Whitespace, which is never part of a relation name and never ignored.
        public static let whitespace = Code(rawValue: "whitespace")
        /// A character that cannot appear here (`]` outside brackets, text after `]`).
        public static let unexpectedCharacter = Code(rawValue: "unexpectedCharacter")
        /// The same relation included as to-one and as to-many, or with two link names.
        public static let conflictingInclude = Code(rawValue: "conflictingInclude")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// What is wrong.
    public let code: Code
    /// The include path as the caller wrote it.
    public let path: String
    /// Character offset of the problem in ``path``.
    public let offset: Int
    /// A sentence for people.
    public let message: String

    /// Creates an error.
    public init(code: Code, path: String, offset: Int, message: String) {
        self.code = code
        self.path = path
        self.offset = offset
        self.message = message
    }

    /// `message at offset <offset> in include path "<path>"`.
    public var description: String { "\(location) in include path \"\(path)\"" }

    /// `message at offset <offset>`: the description without the path, for messages that
    /// name it elsewhere (``HalleyError/includePath``).
    var location: String { "\(message) at offset \(offset)" }
}
