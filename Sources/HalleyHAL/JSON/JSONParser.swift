import Foundation

/// Limits applied while reading JSON.
public struct JSONParsingOptions: Sendable, Hashable {
    /// The deepest nesting of arrays and objects accepted. Past it, parsing stops with
    /// ``JSONParsingError/Code/nestingTooDeep`` instead of exhausting the stack.
    public var maximumDepth: Int

    /// The default limit: 256 levels, far beyond any real HAL document, far below what a
    /// thread's stack can hold.
    public static let defaultMaximumDepth = 256

    /// Creates options.
    public init(maximumDepth: Int = JSONParsingOptions.defaultMaximumDepth) {
        self.maximumDepth = maximumDepth
    }
}

extension JSONValue {
    /// Parses UTF-8 JSON text (RFC 8259).
    ///
    /// It reads what Foundation's `JSONSerialization` reads (with `.fragmentsAllowed`), so a body
    /// other clients accept is not refused here: a comma before a closing `]` or `}` and a leading
    /// UTF-8 byte order mark are accepted. The few deliberate differences (UTF-16 and UTF-32
    /// bodies and nesting past `options.maximumDepth` are refused, a U+FEFF in a string is kept)
    /// are listed with their reasons in the README, under "JSON: what we accept".
    ///
    /// - Parameters:
    ///   - data: The body.
    ///   - options: Limits, such as the nesting depth.
    /// - Throws: ``JSONParsingError`` saying what is wrong, the byte offset and the JSON path.
    public init(parsing data: Data, options: JSONParsingOptions = JSONParsingOptions()) throws(JSONParsingError) {
        let result: Result<JSONValue, JSONParsingError> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), maximumDepth: options.maximumDepth)
            return Result { () throws(JSONParsingError) in try parser.parseDocument() }
        }
        self = try result.get()
    }

    /// Parses JSON text.
    ///
    /// - Throws: ``JSONParsingError``.
    public init(parsing text: String, options: JSONParsingOptions = JSONParsingOptions()) throws(JSONParsingError) {
        try self.init(parsing: Data(text.utf8), options: options)
    }
}

/// A recursive-descent reader over bytes.
///
/// Depth is checked before every descent, so recursion never goes deeper than
/// `maximumDepth`. Error paths are built while unwinding, so the happy path pays nothing
/// for them.
private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var position = 0
    var depth = 0
    /// Strings read so far that held an escape (``parseObject()`` asks whether a name did).
    var escapedStrings = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// An error on its way up; components are collected innermost first.
    struct Failure: Error {
        var code: JSONParsingError.Code
        var offset: Int
        var message: String
        var reversedPath: [JSONPath.Component] = []
    }

    mutating func parseDocument() throws(JSONParsingError) -> JSONValue {
        do throws(Failure) {
            try skipByteOrderMark()
            skipWhitespace()
            let value = try parseValue()
            skipWhitespace()
            if position < bytes.count {
                throw Failure(
                    code: .trailingCharacters, offset: position,
                    message: "unexpected \(describe(bytes[position])) after the JSON value")
            }
            return value
        } catch {
            throw JSONParsingError(
                code: error.code, byteOffset: error.offset,
                path: JSONPath.render(error.reversedPath.reversed()),
                message: error.message)
        }
    }

    /// Skips a UTF-8 byte order mark, which RFC 8259 §8.1 lets parsers ignore and Foundation does.
    ///
    /// Foundation also reads UTF-16 and UTF-32 (found by their BOM or by zero bytes among the first
    /// four); we refuse them by name instead of transcoding, because RFC 8259 requires UTF-8 between
    /// systems and error offsets must count bytes of the body as received. Such a body always fails
    /// anyway (JSON text has no zero, 0xFE or 0xFF bytes), so this check only makes the error say why.
    private mutating func skipByteOrderMark() throws(Failure) {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            position = 3
            return
        }
        // JSON text starts with an ASCII character, so UTF-16 and UTF-32 put a zero in byte 0 or 1.
        guard bytes.count >= 2 else { return }
        let first = bytes[0]
        let second = bytes[1]
        if first == 0 || second == 0 || (first == 0xFE && second == 0xFF) || (first == 0xFF && second == 0xFE) {
            throw Failure(
                code: .invalidUTF8, offset: 0,
                message: "the body looks like UTF-16 or UTF-32 text; JSON must be UTF-8 (RFC 8259 §8.1)")
        }
    }

    private mutating func parseValue() throws(Failure) -> JSONValue {
        guard position < bytes.count else {
            throw Failure(code: .unexpectedEnd, offset: position, message: "the body ended where a value was expected")
        }
        switch bytes[position] {
        case UInt8(ascii: "{"): return .object(try parseObject())
        case UInt8(ascii: "["): return .array(try parseArray())
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectWord("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case let byte:
            throw Failure(
                code: .unexpectedCharacter, offset: position,
                message: "unexpected \(describe(byte)) where a value was expected")
        }
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > maximumDepth {
            throw Failure(
                code: .nestingTooDeep, offset: position,
                message: "arrays and objects are nested deeper than \(maximumDepth) levels")
        }
    }

    private mutating func parseObject() throws(Failure) -> JSONObject {
        var object = JSONObject()
        if try open(closer: UInt8(ascii: "}")) { return object }
        // A bit per member name read so far, chosen by its length and its first and last bytes:
        // a name whose bit is not set yet is new, and skips the duplicate check (a scan of the
        // names before it, a dozen comparisons per document). Equal names written without
        // escapes have equal bytes, so the same bit; a name with an escape (``parseString()``
        // counts them) sets every bit, so that it and every name after it is checked.
        var names: UInt64 = 0
        // Whitespace is already skipped here: after the brace above, and after each comma below.
        while true {
            guard position < bytes.count else {
                throw Failure(code: .unexpectedEnd, offset: position, message: "the body ended inside an object")
            }
            guard bytes[position] == UInt8(ascii: "\"") else {
                throw Failure(
                    code: .unexpectedCharacter, offset: position,
                    message: "unexpected \(describe(bytes[position])) where a member name was expected")
            }
            let key: String
            let keyStart = position
            let escaped = escapedStrings
            if let known = knownKey() { key = known } else { key = try parseString() }
            let name =
                escapedStrings == escaped
                ? Self.nameBit(written: UnsafeBufferPointer(rebasing: bytes[keyStart..<position])) : .max
            let mayRepeat = names & name != 0
            names |= name
            skipWhitespace()
            try expect(UInt8(ascii: ":"), what: "':' after a member name")
            skipWhitespace()
            let value: JSONValue
            do throws(Failure) {
                value = try parseValue()
            } catch {
                var failure = error
                failure.reversedPath.append(.key(key))
                throw failure
            }
            if object.isEmpty {
                // A comma after the first member means more follow: room for eight at once, where
                // growing from one cost a second allocation. Otherwise the object ends here (or the
                // document is malformed): a link object of one member, made exact at once.
                skipWhitespace()
                if position < bytes.count, bytes[position] == UInt8(ascii: ",") {
                    object.reserveCapacity(8)
                } else {
                    object = JSONObject(onlyMember: consume key, consume value)
                    if try endOfMember(closer: UInt8(ascii: "}"), container: "an object") { return object }
                    continue
                }
            }
            // Moved, not copied: a copy of each member's value cost a retain and a release.
            if mayRepeat, object.contains(key) {
                object[key] = consume value
            } else {
                object.appendNew(consume key, consume value)
            }
            if try endOfMember(closer: UInt8(ascii: "}"), container: "an object") { return object }
        }
    }

    /// The bit of ``parseObject()``'s names for a member name without escapes written as
    /// `written` (its bytes in the document, quotes included), which are then its bytes.
    @inline(__always)
    private static func nameBit(written: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let count = written.count - 2
        guard count > 0 else { return 1 }
        let mix = count &+ Int(written[1]) &* 3 &+ Int(written[count]) &* 5
        return 1 &<< UInt64(mix & 63)
    }

    /// Opens the array or object whose `[` or `{` is at `position`: one level deeper, past the
    /// opener and any whitespace. Returns whether it ends at once with `closer` (`[]`, `{ }`),
    /// which is then consumed.
    @inline(__always)
    private mutating func open(closer: UInt8) throws(Failure) -> Bool {
        try enter()
        position += 1
        skipWhitespace()
        guard position < bytes.count, bytes[position] == closer else { return false }
        position += 1
        depth -= 1
        return true
    }

    /// After a member of an array or object: a `,` (then the closer is accepted too, as
    /// Foundation accepts a trailing comma; only after a comma, so `[,]` stays an error) or the
    /// closer. Returns whether the container ended.
    @inline(__always)
    private mutating func endOfMember(closer: UInt8, container: String) throws(Failure) -> Bool {
        skipWhitespace()
        guard position < bytes.count else {
            throw Failure(code: .unexpectedEnd, offset: position, message: "the body ended inside \(container)")
        }
        switch bytes[position] {
        case UInt8(ascii: ","):
            position += 1
            skipWhitespace()
            guard position < bytes.count, bytes[position] == closer else { return false }
        case closer:
            break
        case let byte:
            throw Failure(
                code: .unexpectedCharacter, offset: position,
                message: "unexpected \(describe(byte)) where ',' or '\(Character(Unicode.Scalar(closer)))' was expected"
            )
        }
        position += 1
        depth -= 1
        return true
    }

    private mutating func parseArray() throws(Failure) -> [JSONValue] {
        var array: [JSONValue] = []
        if try open(closer: UInt8(ascii: "]")) { return array }
        // Whitespace is already skipped here: after the bracket above, and after each comma below.
        while true {
            do throws(Failure) {
                array.append(try parseValue())
            } catch {
                var failure = error
                failure.reversedPath.append(.index(array.count))
                throw failure
            }
            if try endOfMember(closer: UInt8(ascii: "]"), container: "an array") { return array }
        }
    }

    /// The member name at `position` when it is one of the names HAL documents repeat in
    /// every resource and link, written without escapes: the literal, with no string built.
    ///
    /// perf: no `String` made and validated for the commonest names;
    /// BENCHMARKS.md, "Why the hot paths look as they do".
    @inline(__always)
    private mutating func knownKey() -> String? {
        let start = position + 1
        guard start < bytes.count else { return nil }
        // HAL's own names, the link object's, the IANA relations HAL servers use most (they
        // are the keys of `_links`) and `id`, the commonest attribute.
        switch bytes[start] {
        case UInt8(ascii: "h") where take("href", at: start): return "href"
        case UInt8(ascii: "s") where take("self", at: start): return "self"
        case UInt8(ascii: "n") where take("name", at: start): return "name"
        case UInt8(ascii: "n") where take("next", at: start): return "next"
        case UInt8(ascii: "t") where take("templated", at: start): return "templated"
        case UInt8(ascii: "t") where take("title", at: start): return "title"
        case UInt8(ascii: "t") where take("type", at: start): return "type"
        case UInt8(ascii: "_") where take("_links", at: start): return "_links"
        case UInt8(ascii: "_") where take("_embedded", at: start): return "_embedded"
        case UInt8(ascii: "_") where take("_templates", at: start): return "_templates"
        case UInt8(ascii: "i") where take("id", at: start): return "id"
        case UInt8(ascii: "i") where take("item", at: start): return "item"
        case UInt8(ascii: "c") where take("collection", at: start): return "collection"
        case UInt8(ascii: "c") where take("curies", at: start): return "curies"
        case UInt8(ascii: "p") where take("prev", at: start): return "prev"
        case UInt8(ascii: "p") where take("profile", at: start): return "profile"
        case UInt8(ascii: "f") where take("first", at: start): return "first"
        case UInt8(ascii: "l") where take("last", at: start): return "last"
        case UInt8(ascii: "u") where take("up", at: start): return "up"
        case UInt8(ascii: "e") where take("edit", at: start): return "edit"
        default: return nil
        }
    }

    /// ``isName(_:at:)``, and then past the name's closing quote. The length is the literal's:
    /// asking the name returned for its length cost a release per name.
    @inline(__always)
    private mutating func take(_ spelling: StaticString, at start: Int) -> Bool {
        guard isName(spelling, at: start) else { return false }
        position = start + spelling.utf8CodeUnitCount + 1
        return true
    }

    /// Whether the bytes at `start` are `spelling` and then a closing quote.
    @inline(__always)
    private func isName(_ spelling: StaticString, at start: Int) -> Bool {
        let count = spelling.utf8CodeUnitCount
        guard start + count < bytes.count, bytes[start + count] == UInt8(ascii: "\"") else { return false }
        let text = spelling.utf8Start
        for index in 0..<count where bytes[start + index] != text[index] { return false }
        return true
    }

    @inline(__always)
    private mutating func parseString() throws(Failure) -> String {
        let start = position
        position += 1
        let contentStart = position
        var isASCII = true
        // Fast path: no escapes, so the bytes are the string.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[contentStart..<position])
                position += 1
                guard isASCII else { return try makeString(slice, at: contentStart) }
                // ASCII needs no validation; most keys and values in HAL documents are ASCII.
                // perf: copied into a string of its exact size, not `String(decoding:as:)`, whose
                // generic path checked the bytes again twice;
                // BENCHMARKS.md, "Why the hot paths look as they do".
                guard !slice.isEmpty else { return "" }
                return String(unsafeUninitializedCapacity: slice.count) { buffer in
                    _ = buffer.initialize(fromContentsOf: slice)
                    return slice.count
                }
            }
            if byte >= 0x80 { isASCII = false }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 {
                throw Failure(
                    code: .invalidString, offset: position, message: "unescaped control character in a string")
            }
            position += 1
        }
        guard position < bytes.count else {
            throw Failure(code: .unexpectedEnd, offset: start, message: "the body ended inside a string")
        }
        escapedStrings += 1
        var buffer = [UInt8](UnsafeBufferPointer(rebasing: bytes[contentStart..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return try buffer.withUnsafeBufferPointer { pointer throws(Failure) in
                    try makeString(pointer, at: contentStart)
                }
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            case 0..<0x20:
                throw Failure(
                    code: .invalidString, offset: position, message: "unescaped control character in a string")
            default:
                buffer.append(byte)
                position += 1
            }
        }
        throw Failure(code: .unexpectedEnd, offset: start, message: "the body ended inside a string")
    }

    private func makeString(_ utf8: UnsafeBufferPointer<UInt8>, at offset: Int) throws(Failure) -> String {
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw Failure(code: .invalidUTF8, offset: offset, message: "a string is not valid UTF-8")
        }
        return string
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(Failure) {
        let escapeStart = position
        position += 1
        guard position < bytes.count else {
            throw Failure(code: .unexpectedEnd, offset: escapeStart, message: "the body ended inside an escape")
        }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4(escapeStart: escapeStart)
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else {
                    throw Failure(
                        code: .invalidString, offset: escapeStart, message: "unpaired UTF-16 surrogate in a string")
                }
                position += 2
                let low = try parseHex4(escapeStart: escapeStart)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw Failure(
                        code: .invalidString, offset: escapeStart, message: "unpaired UTF-16 surrogate in a string")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw Failure(
                    code: .invalidString, offset: escapeStart, message: "unpaired UTF-16 surrogate in a string")
            }
            guard let unicode = Unicode.Scalar(scalar) else {
                throw Failure(code: .invalidString, offset: escapeStart, message: "invalid \\u escape")
            }
            buffer.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw Failure(
                code: .invalidString, offset: escapeStart, message: "invalid escape \(describe(byte)) in a string")
        }
    }

    private mutating func parseHex4(escapeStart: Int) throws(Failure) -> UInt32 {
        guard position + 4 <= bytes.count else {
            throw Failure(code: .unexpectedEnd, offset: escapeStart, message: "the body ended inside a \\u escape")
        }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw Failure(code: .invalidString, offset: escapeStart, message: "invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    @inline(__always)
    private mutating func parseNumber() throws(Failure) -> JSONValue {
        let start = position
        var isInteger = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else {
            throw Failure(code: .invalidNumber, offset: start, message: "a number needs digits")
        }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) {
                throw Failure(code: .invalidNumber, offset: start, message: "a number cannot have leading zeros")
            }
        } else {
            skipDigits()
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw Failure(code: .invalidNumber, offset: start, message: "a fraction needs digits")
            }
            skipDigits()
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw Failure(code: .invalidNumber, offset: start, message: "an exponent needs digits")
            }
            skipDigits()
        }
        if isInteger, let int = integer(from: start) { return .int(int) }
        if let decimal = shortDecimal(from: start) { return .double(decimal) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else {
            throw Failure(code: .invalidNumber, offset: start, message: "the number \(text) does not fit a Double")
        }
        return .double(double)
    }

    /// The integer written at `start..<position` (an optional `-`, then digits, as checked by
    /// ``parseNumber()``), or `nil` when it does not fit an `Int`: what `Int(text)` gives,
    /// without making the text a string first (every id and count of a document).
    private func integer(from start: Int) -> Int? {
        let negative = bytes[start] == UInt8(ascii: "-")
        var value = 0
        // Accumulated on the negative side, which also holds `Int.min`.
        for index in (negative ? start + 1 : start)..<position {
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (next, underflowed) = shifted.subtractingReportingOverflow(Int(bytes[index] &- UInt8(ascii: "0")))
            if overflowed || underflowed { return nil }
            value = next
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    /// The number at `start..<position` when it is a decimal without an exponent and with at
    /// most 15 significant digits and 22 after the point (a price, a coordinate), else `nil`.
    ///
    /// Both the digits as an integer and the power of ten are then exact doubles, so their
    /// quotient is the correctly rounded value, the one `Double(text)` (`strtod`) returns:
    /// without making the text a string and reading it a second time.
    private func shortDecimal(from start: Int) -> Double? {
        var index = start
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var digits: UInt64 = 0
        var significant = 0
        var fractionDigits = 0
        var inFraction = false
        while index < position {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: ".") {
                inFraction = true
                continue
            }
            guard isDigit(byte) else { return nil }
            digits = digits * 10 + UInt64(byte &- UInt8(ascii: "0"))
            if digits != 0 { significant += 1 }
            if inFraction { fractionDigits += 1 }
            if significant > 15 || fractionDigits > 22 { return nil }
        }
        let value = Double(digits) / Self.exactPowersOfTen[fractionDigits]
        return negative ? -value : value
    }

    /// 10⁰ through 10²², each exactly representable as a `Double`.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]

    private mutating func skipDigits() {
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
            default: return
            }
        }
    }

    @inline(__always)
    private mutating func expect(_ byte: UInt8, what: String) throws(Failure) {
        guard position < bytes.count else {
            throw Failure(code: .unexpectedEnd, offset: position, message: "the body ended where \(what) was expected")
        }
        guard bytes[position] == byte else {
            throw Failure(
                code: .unexpectedCharacter, offset: position,
                message: "unexpected \(describe(bytes[position])) where \(what) was expected")
        }
        position += 1
    }

    private mutating func expectWord(_ word: StaticString) throws(Failure) {
        let start = position
        let length = word.utf8CodeUnitCount
        guard position + length <= bytes.count else {
            throw Failure(code: .unexpectedEnd, offset: start, message: "the body ended inside a literal")
        }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: length)
        for offset in 0..<length where bytes[position + offset] != expected[offset] {
            throw Failure(
                code: .unexpectedCharacter, offset: position + offset,
                message: "unexpected \(describe(bytes[position + offset])) in a literal")
        }
        position += length
    }

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }
}
