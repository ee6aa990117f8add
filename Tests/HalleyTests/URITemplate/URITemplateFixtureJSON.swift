import Foundation

/// A JSON value that keeps object members in file order.
///
/// The conformance suite is read with this instead of `JSONSerialization`
/// because that loses key order (so map expansions would vary between runs)
/// and, on Linux, hands back `NSNumber`s whose Bool-versus-number identity
/// is awkward to recover.
enum URITemplateFixtureJSON: Sendable {
    case string(String)
    /// The number's text as written, so `6` stays `"6"` and `37.76` stays `"37.76"`.
    case number(String)
    case bool(Bool)
    case null
    case array([URITemplateFixtureJSON])
    case object([(String, URITemplateFixtureJSON)])

    /// Member lookup for objects; nil for missing keys and non-objects.
    subscript(key: String) -> URITemplateFixtureJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    struct ParseError: Error, CustomStringConvertible {
        let offset: Int
        let problem: String
        var description: String { "JSON error at byte \(offset): \(problem)" }
    }

    static func parse(_ data: Data) throws -> URITemplateFixtureJSON {
        var reader = Reader(bytes: Array(data))
        let value = try reader.readValue()
        reader.skipWhitespace()
        guard reader.index == reader.bytes.count else {
            throw ParseError(offset: reader.index, problem: "trailing content")
        }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
                index += 1
            }
        }

        func fail(_ problem: String) -> ParseError {
            ParseError(offset: index, problem: problem)
        }

        mutating func expect(_ literal: String) throws {
            for byte in literal.utf8 {
                guard index < bytes.count, bytes[index] == byte else {
                    throw fail("expected \(literal)")
                }
                index += 1
            }
        }

        mutating func readValue() throws -> URITemplateFixtureJSON {
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                return try readObject()
            case UInt8(ascii: "["):
                return try readArray()
            case UInt8(ascii: "\""):
                return .string(try readString())
            case UInt8(ascii: "t"):
                try expect("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expect("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try expect("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return readNumber()
            default:
                throw fail("unexpected character")
            }
        }

        mutating func readObject() throws -> URITemplateFixtureJSON {
            index += 1
            var members: [(String, URITemplateFixtureJSON)] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw fail("expected a member name")
                }
                let key = try readString()
                skipWhitespace()
                try expect(":")
                members.append((key, try readValue()))
                skipWhitespace()
                guard index < bytes.count else { throw fail("unterminated object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else {
                    try expect("}")
                    return .object(members)
                }
            }
        }

        mutating func readArray() throws -> URITemplateFixtureJSON {
            index += 1
            var elements: [URITemplateFixtureJSON] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                elements.append(try readValue())
                skipWhitespace()
                guard index < bytes.count else { throw fail("unterminated array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else {
                    try expect("]")
                    return .array(elements)
                }
            }
        }

        mutating func readNumber() -> URITemplateFixtureJSON {
            let start = index
            while index < bytes.count,
                "+-.eE0123456789".utf8.contains(bytes[index])
            {
                index += 1
            }
            return .number(String(decoding: bytes[start..<index], as: UTF8.self))
        }

        mutating func readString() throws -> String {
            index += 1
            var utf8: [UInt8] = []
            var pendingHighSurrogate: UInt32?
            while true {
                guard index < bytes.count else { throw fail("unterminated string") }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") {
                    return String(decoding: utf8, as: UTF8.self)
                }
                guard byte == UInt8(ascii: "\\") else {
                    utf8.append(byte)
                    continue
                }
                guard index < bytes.count else { throw fail("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
                    utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count,
                        let code = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
                    else { throw fail("bad \\u escape") }
                    index += 4
                    var scalarValue = code
                    if (0xD800..<0xDC00).contains(code) {
                        pendingHighSurrogate = code
                        continue
                    }
                    if (0xDC00..<0xE000).contains(code), let high = pendingHighSurrogate {
                        scalarValue = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)
                    }
                    pendingHighSurrogate = nil
                    guard let scalar = Unicode.Scalar(scalarValue) else { throw fail("bad code point") }
                    utf8.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    throw fail("unknown escape")
                }
            }
        }
    }
}
