/// Why a body could not be read as JSON, and where.
///
/// ```swift
/// do { _ = try JSONValue(parsing: Data("{\"a\": [1, }".utf8)) }
/// catch let error as JSONParsingError {
///     error.code        // .unexpectedCharacter
///     error.byteOffset  // 10
///     error.path        // "$.a[1]"
/// }
/// ```
public struct JSONParsingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. Open for new codes, so switch with a `default`.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The body ended before the value did (truncated JSON, or an empty body).
        public static let unexpectedEnd = Code(rawValue: "unexpectedEnd")
        /// A character that cannot appear at this point.
        public static let unexpectedCharacter = Code(rawValue: "unexpectedCharacter")
        /// Text after the top-level value.
        public static let trailingCharacters = Code(rawValue: "trailingCharacters")
        /// A malformed number, or one that does not fit a `Double`.
        public static let invalidNumber = Code(rawValue: "invalidNumber")
        /// A string with a bad escape or an unescaped control character.
        public static let invalidString = Code(rawValue: "invalidString")
        /// Bytes that are not valid UTF-8.
        public static let invalidUTF8 = Code(rawValue: "invalidUTF8")
        /// Arrays and objects nested deeper than the limit.
        public static let nestingTooDeep = Code(rawValue: "nestingTooDeep")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// Offset in bytes from the start of the body.
    public let byteOffset: Int
    /// JSON path of the value being read, e.g. `$._links.self.href` or `$[3]`.
    public let path: String
    /// A sentence for people.
    public let message: String

    /// Creates an error.
    public init(code: Code, byteOffset: Int, path: String, message: String) {
        self.code = code
        self.byteOffset = byteOffset
        self.path = path
        self.message = message
    }

    /// `message at <path> (byte <offset>)`.
    public var description: String { "\(message) at \(path) (byte \(byteOffset))" }
}

/// Renders JSON path components as `$.key[3]`, quoting keys that are not plain identifiers.
package enum JSONPath {
    /// One step into a value.
    package enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    package static func render(_ components: [Component]) -> String {
        var text = "$"
        for component in components { append(component, to: &text) }
        return text
    }

    static func append(_ component: Component, to text: inout String) {
        switch component {
        case .index(let index):
            text += "[\(index)]"
        case .key(let key):
            if !key.isEmpty, key.utf8.allSatisfy({ isPlain($0) }) {
                text += ".\(key)"
            } else {
                text += "[\"\(key.replacingOccurrences(of: "\"", with: "\\\""))\"]"
            }
        }
    }

    static func appending(_ component: Component, to path: String) -> String {
        var text = path
        append(component, to: &text)
        return text
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"):
            return true
        default:
            return false
        }
    }
}
