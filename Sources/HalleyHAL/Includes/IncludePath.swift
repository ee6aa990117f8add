/// One parsed include path: the relations to follow from the root, in order.
///
/// Grammar (segments separated by `.`):
///
///     path     = segment *( "." segment )
///     segment  = rel / "[" rel "]"            ; [rel] is to-many, rel is to-one
///     rel      = name [ "@" name ]             ; "@" picks links by their HAL `name`
///     name     = 1*plain / quoted
///     plain    = any character but . [ ] " @ and whitespace   ; ":" and "/" are fine
///     quoted   = DQUOTE 1*( any but DQUOTE and "\" / "\" DQUOTE / "\\" ) DQUOTE
///
/// ```text
/// "[contacts].website"                 every contact, then each contact's website
/// "ex:owner.[ex:contacts]"             CURIE rels need no quoting
/// "[\"http://x.org/rels/contacts\"]"   a URI rel holding dots is quoted
/// "ea:admin@primary"                   the ea:admin link whose name is "primary"
/// ```
public struct IncludePath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public struct Segment: Sendable, Hashable {
        /// The relation to follow, as written.
        public let rel: LinkRelation
        /// Whether the relation is to-many (`[rel]`).
        public let isToMany: Bool
        /// The HAL link `name` that selects among several links of the relation.
        public let linkName: String?

        /// Creates a segment.
        public init(rel: LinkRelation, isToMany: Bool, linkName: String? = nil) {
            self.rel = rel
            self.isToMany = isToMany
            self.linkName = linkName
        }

        /// The segment written back in the path grammar.
        public var description: String {
            var text = Self.quoteIfNeeded(rel.rawValue)
            if let linkName { text += "@" + Self.quoteIfNeeded(linkName) }
            return isToMany ? "[\(text)]" : text
        }

        static func quoteIfNeeded(_ name: String) -> String {
            let needsQuotes = name.isEmpty || name.contains { IncludePathParser.isSpecial($0) || $0.isWhitespace }
            guard needsQuotes else { return name }
            return "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\""
        }
    }

    /// The segments from the root down.
    public let segments: [Segment]
    /// The text the path was parsed from (or its canonical form when built from segments).
    public let text: String
    /// Character offset of each segment in ``text``, for error messages.
    let offsets: [Int]

    /// Parses a path.
    ///
    /// - Throws: ``IncludePathError`` naming the path and the character offset.
    public init(_ path: String) throws(IncludePathError) {
        var parser = IncludePathParser(path)
        (segments, offsets) = try parser.parse()
        text = path
    }

    /// Creates a path from segments.
    public init(segments: [Segment]) {
        self.segments = segments
        text = segments.map(\.description).joined(separator: ".")
        var offsets: [Int] = []
        var offset = 0
        for segment in segments {
            offsets.append(offset)
            offset += segment.description.count + 1
        }
        self.offsets = offsets
    }

    /// The path in canonical form, e.g. `[contacts].website`.
    public var description: String { segments.map(\.description).joined(separator: ".") }
}

/// Reads the include-path grammar character by character, tracking offsets for errors.
struct IncludePathParser {
    private let text: String
    private let characters: [Character]
    private var position = 0

    init(_ text: String) {
        self.text = text
        characters = Array(text)
    }

    static func isSpecial(_ character: Character) -> Bool {
        character == "." || character == "[" || character == "]" || character == "\"" || character == "@"
    }

    private func error(_ code: IncludePathError.Code, at offset: Int, _ message: String) -> IncludePathError {
        IncludePathError(code: code, path: text, offset: offset, message: message)
    }

    mutating func parse() throws(IncludePathError) -> ([IncludePath.Segment], [Int]) {
        guard !characters.isEmpty else { throw error(.emptyPath, at: 0, "an include path cannot be empty") }
        var segments: [IncludePath.Segment] = []
        var offsets: [Int] = []
        while true {
            offsets.append(position)
            segments.append(try parseSegment())
            guard position < characters.count else { return (segments, offsets) }
            let character = characters[position]
            guard character == "." else {
                if character.isWhitespace { throw error(.whitespace, at: position, "whitespace is not allowed") }
                throw error(.unexpectedCharacter, at: position, "expected '.' between segments, found '\(character)'")
            }
            position += 1
            if position == characters.count {
                throw error(.emptySegment, at: position, "a path cannot end with '.'")
            }
        }
    }

    private mutating func parseSegment() throws(IncludePathError) -> IncludePath.Segment {
        if characters[position] == "[" {
            position += 1
            let (rel, linkName) = try parseRel(closing: "]")
            guard position < characters.count else {
                throw error(.unclosedBracket, at: position, "'[' is never closed: expected ']'")
            }
            guard characters[position] == "]" else {
                throw error(.unexpectedCharacter, at: position, "expected ']', found '\(characters[position])'")
            }
            position += 1
            return IncludePath.Segment(rel: rel, isToMany: true, linkName: linkName)
        }
        let (rel, linkName) = try parseRel(closing: nil)
        return IncludePath.Segment(rel: rel, isToMany: false, linkName: linkName)
    }

    private mutating func parseRel(closing: Character?) throws(IncludePathError) -> (LinkRelation, String?) {
        let rel = try parseName(what: "relation", closing: closing)
        var linkName: String?
        if position < characters.count, characters[position] == "@" {
            position += 1
            linkName = try parseName(what: "link name", closing: closing)
        }
        return (LinkRelation(rel), linkName)
    }

    private mutating func parseName(what: String, closing: Character?) throws(IncludePathError) -> String {
        let start = position
        guard position < characters.count else {
            if closing != nil { throw error(.unclosedBracket, at: position, "the path ends inside '['") }
            throw error(.emptySegment, at: position, "a \(what) is missing")
        }
        if characters[position] == "\"" { return try parseQuoted() }
        var name = ""
        while position < characters.count {
            let character = characters[position]
            if character.isWhitespace { throw error(.whitespace, at: position, "whitespace is not allowed") }
            if Self.isSpecial(character) {
                if character == "[" {
                    throw error(.unexpectedCharacter, at: position, "'[' cannot appear inside a name")
                }
                if character == "]" && closing == nil {
                    throw error(.unexpectedCharacter, at: position, "']' without a matching '['")
                }
                if character == "\"" {
                    throw error(.unexpectedCharacter, at: position, "a quote can only start a name")
                }
                break
            }
            name.append(character)
            position += 1
        }
        guard !name.isEmpty else {
            throw error(.emptySegment, at: start, "a \(what) is missing")
        }
        return name
    }

    private mutating func parseQuoted() throws(IncludePathError) -> String {
        let start = position
        position += 1
        var name = ""
        while position < characters.count {
            let character = characters[position]
            switch character {
            case "\"":
                position += 1
                guard !name.isEmpty else { throw error(.emptySegment, at: start, "a quoted name cannot be empty") }
                return name
            case "\\":
                guard position + 1 < characters.count else { break }
                let escaped = characters[position + 1]
                guard escaped == "\"" || escaped == "\\" else {
                    throw error(.unexpectedCharacter, at: position, "only \\\" and \\\\ are escapes in a quoted name")
                }
                name.append(escaped)
                position += 2
                continue
            default:
                name.append(character)
                position += 1
                continue
            }
            position += 1
        }
        throw error(.unclosedQuote, at: start, "the quote opened here is never closed")
    }
}
