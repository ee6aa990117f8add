import HalleyTestFixtures

/// Writes random JSON text and damages it in the ways real bodies and hand-edited fixtures go
/// wrong: stray or missing commas, brackets, quotes and digits, trailing commas at any depth,
/// truncation, odd whitespace and escapes.
///
/// Documents are mostly valid JSON plus the trailing commas of issue #14, with a few values
/// at or past the edges (lone surrogate escapes, numbers that overflow a Double); mutations
/// then make them near-valid or invalid. Which input is valid is never decided here: the
/// differential test asks both parsers.
struct JSONDocumentGenerator {
    var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    // MARK: Valid text (plus trailing commas)

    mutating func document() -> String {
        switch random.below(10) {
        case 0: return whitespace() + scalar() + whitespace()
        case 1...4: return whitespace() + array(depth: 1) + whitespace()
        default: return whitespace() + object(depth: 1) + whitespace()
        }
    }

    private mutating func value(depth: Int) -> String {
        // Containers thin out with depth so documents stay a few hundred bytes.
        guard random.chance(depth < 6 ? 35 : 5) else { return scalar() }
        return random.chance(50) ? array(depth: depth + 1) : object(depth: depth + 1)
    }

    private mutating func array(depth: Int) -> String {
        let count = random.below(5)
        var text = "[" + whitespace()
        for index in 0..<count {
            if index > 0 { text += whitespace() + "," + whitespace() }
            text += value(depth: depth)
        }
        if count > 0, random.chance(15) { text += whitespace() + "," }
        return text + whitespace() + "]"
    }

    private mutating func object(depth: Int) -> String {
        let count = random.below(5)
        var text = "{" + whitespace()
        for index in 0..<count {
            if index > 0 { text += whitespace() + "," + whitespace() }
            text += key() + whitespace() + ":" + whitespace() + value(depth: depth)
        }
        if count > 0, random.chance(15) { text += whitespace() + "," }
        return text + whitespace() + "}"
    }

    /// Keys come often from a small pool, so objects get duplicate keys, keys that differ only
    /// by escaping (`a` and `\u0061`) and keys that are canonically equivalent (é and e + U+0301).
    private mutating func key() -> String {
        guard random.chance(40) else { return string() }
        return "\"" + random.pick(["a", "b", "_links", "_embedded", "href", "\u{E9}", "e\u{301}", "", "\\u0061"]) + "\""
    }

    private mutating func whitespace() -> String {
        guard random.chance(30) else { return "" }
        return random.pick([" ", "  ", "\n", "\t", "\r\n", " \n\t ", "\r"])
    }

    private mutating func scalar() -> String {
        switch random.below(10) {
        case 0: return "null"
        case 1: return "true"
        case 2: return "false"
        case 3...5: return number()
        default: return string()
        }
    }

    /// Where Foundation changes its box (Int64, UInt64, NSDecimalNumber, Double) or gives up.
    static let boundaryNumbers = [
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "18446744073709551616", "-1234567890123456789", "-1234567890123456789.0",
        "-0", "-0.0", "0e0", "-0e-0", "1E+2", "0.0", "1e308", "1e309", "-1e309", "1.7976931348623157e308",
        "1.7976931348623159e308", "4.9e-324", "2.4e-324", "1e-400", "1e-99999999999999999999",
        "123456789012345678901234567890", "123456789012345678901234567890.5", "100000000000000000000.0",
        "0.1000000000000000055511151231257827021181583404541015625", "9007199254740993",
        "1" + String(repeating: "0", count: 200), "1" + String(repeating: "0", count: 400),
        "0." + String(repeating: "0", count: 400) + "1",
    ]

    private mutating func number() -> String {
        if random.chance(10) { return random.pick(Self.boundaryNumbers) }
        var text = random.chance(30) ? "-" : ""
        if random.chance(20) {
            text += "0"
        } else {
            text += String(random.below(9) + 1) + digits(random.below(random.chance(10) ? 30 : 6))
        }
        if random.chance(30) { text += "." + digits(1 + random.below(random.chance(10) ? 30 : 4)) }
        if random.chance(20) {
            text += random.pick(["e", "E"]) + random.pick(["", "+", "-"]) + digits(1 + random.below(3))
        }
        return text
    }

    private mutating func digits(_ count: Int) -> String {
        String((0..<count).map { _ in Character(String(random.below(10))) })
    }

    private mutating func string() -> String {
        var text = "\""
        for _ in 0..<random.below(8) { text += stringPiece() }
        return text + "\""
    }

    private static let letters = Array("abcxyzABCXYZ019 _-:/{}[],")

    private mutating func stringPiece() -> String {
        switch random.below(12) {
        case 0...5: return String(random.pick(Self.letters))
        case 6: return random.pick(["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"])
        case 7:
            let scalar = random.pick([0x0000, 0x001F, 0x0020, 0x007F, 0x00E9, 0x2028, 0xFEFF, 0xFFFE, 0xFFFF])
            return "\\u" + hex4(random.chance(10) ? random.below(0xD800) : scalar)
        case 8:
            // A surrogate pair, or now and then half of one, which both parsers must refuse.
            let high = 0xD800 + random.below(0x400)
            let low = 0xDC00 + random.below(0x400)
            switch random.below(10) {
            case 0: return "\\u" + hex4(high)
            case 1: return "\\u" + hex4(low)
            case 2: return "\\u" + hex4(high) + "\\u0041"
            default: return "\\u" + hex4(high) + "\\u" + hex4(low)
            }
        case 9:
            return random.pick([
                "\u{E9}", "e\u{301}", "\u{1F600}", "\u{4E2D}", "\u{7F}", "\u{A0}", "\u{FFFE}", "\u{10FFFF}", "\u{2028}",
                "\u{FEFF}",
            ])
        default: return String(random.pick(Self.letters))
        }
    }

    private mutating func hex4(_ value: Int) -> String {
        let hex = String(value, radix: 16, uppercase: random.chance(50))
        return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    // MARK: Damage

    /// One to three mutations of `bytes`.
    mutating func mutate(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        for _ in 0...random.below(3) { bytes = mutateOnce(bytes) }
        return bytes
    }

    private static let insertable: [[UInt8]] =
        [
            ",", ",", "[", "]", "{", "}", "\"", "\"", ":", "0", "1", "9", "-", ".", "e", "+", "\\", " ", "t", "n",
            "\\u", "\\ud800", "/*", "//", "'", "NaN",
        ].map { Array($0.utf8) } + [[0x00], [0x0B], [0x0C], [0x7F], [0xC3], [0xC3, 0xA9], [0xFF], [0xEF, 0xBB, 0xBF]]

    private static let structural = Set(Array(",[]{}\":".utf8))

    private mutating func mutateOnce(_ original: [UInt8]) -> [UInt8] {
        var bytes = original
        let position = random.below(bytes.count + 1)
        switch random.below(13) {
        case 0, 1:
            bytes.insert(contentsOf: random.pick(Self.insertable), at: position)
        case 2:
            if !bytes.isEmpty { bytes.remove(at: min(position, bytes.count - 1)) }
        case 3:
            if !bytes.isEmpty { bytes[min(position, bytes.count - 1)] = random.pick(Self.insertable)[0] }
        case 4:
            bytes = Array(bytes.prefix(position))
        case 5:
            bytes = insertingTrailingCommas(into: bytes, atDepth: 1 + random.below(4))
        case 6:
            bytes = insertingTrailingCommas(into: bytes, atDepth: nil)
        case 7:
            if let comma = randomIndex(in: bytes, where: { $0 == UInt8(ascii: ",") }) {
                bytes.insert(UInt8(ascii: ","), at: comma)
            }
        case 8:
            let odd: [[UInt8]] = [[0x20], [0x0A], [0x0D], [0x09], [0x0B], [0x0C], [0xC2, 0xA0], [0x20, 0x2C, 0x20]]
            bytes.insert(contentsOf: random.pick(odd), at: position)
        case 9:
            if let quote = randomIndex(in: bytes, where: { $0 == UInt8(ascii: "\"") }) {
                let escapes = [
                    "\\", "\\x", "\\'", "\\U00e9", "\\u12", "\\uZZZZ", "\\u00e9", "\\/", "\\\"", "\\ud83d\\ude00",
                ]
                bytes.insert(contentsOf: Array(random.pick(escapes).utf8), at: quote + 1)
            }
        case 10:
            if bytes.count >= 2 {
                let index = min(position, bytes.count - 2)
                bytes.swapAt(index, index + 1)
            }
        case 11:
            switch random.below(5) {
            case 0: bytes = [0xEF, 0xBB, 0xBF] + bytes
            case 1: bytes = Array("[".utf8) + bytes + Array(",]".utf8)
            case 2: bytes += Array(random.pick([" x", ",", "]", "}", " []", "\n"]).utf8)
            case 3: bytes = Array(random.pick([" ", "\u{FEFF}", ",", "x"]).utf8) + bytes
            default: bytes = Array("{\"k\":".utf8) + bytes + Array(",}".utf8)
            }
        default:
            if let index = randomIndex(in: bytes, where: { Self.structural.contains($0) }) { bytes.remove(at: index) }
        }
        return bytes
    }

    private mutating func randomIndex(in bytes: [UInt8], where matches: (UInt8) -> Bool) -> Int? {
        let indices = bytes.indices.filter { matches(bytes[$0]) }
        return indices.isEmpty ? nil : random.pick(indices)
    }

    /// Puts a comma (sometimes with whitespace around it) before each closing bracket or brace at
    /// `depth`, or at every depth when `depth` is nil, skipping bytes inside strings. Empty
    /// containers become `[,]` and `{,}`, which both parsers must refuse.
    mutating func insertingTrailingCommas(into bytes: [UInt8], atDepth target: Int?) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + 16)
        var depth = 0
        var strings = JSONStringScanner()
        for byte in bytes {
            if strings.continuesString(with: byte) {
                result.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                strings.inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if target == nil || target == depth {
                    result += Array(random.pick([",", " ,", ", ", ",\n", "\t,\r\n"]).utf8)
                }
                depth -= 1
            default:
                break
            }
            result.append(byte)
        }
        return result
    }

    // MARK: Invalid text

    /// A short run of JSON-ish tokens with no grammar: mostly invalid, now and then valid.
    mutating func tokenSoup() -> [UInt8] {
        let tokens = [
            "{", "}", "[", "]", ",", ":", "\"a\"", "1", "-", "0", ".", "e", "true", "nul", " ", "\"", "\\", "-0",
            "1.5", "[]", "{}", "\"\\u00e9\"", "null", ",]", ",}",
        ]
        var text = ""
        for _ in 0...random.below(8) { text += random.pick(tokens) }
        return Array(text.utf8)
    }
}

/// Follows JSON text byte by byte to tell the bytes inside strings (escapes included) from the
/// structure: for the scanners that edit or inspect documents without parsing them.
struct JSONStringScanner {
    /// Whether the bytes read are inside a string; set by the caller at an opening quote.
    var inString = false
    private var escaped = false

    /// Whether `byte`, the next one, belongs to the string being read (its closing quote too).
    mutating func continuesString(with byte: UInt8) -> Bool {
        guard inString else { return false }
        if escaped {
            escaped = false
        } else if byte == UInt8(ascii: "\\") {
            escaped = true
        } else if byte == UInt8(ascii: "\"") {
            inString = false
        }
        return true
    }
}
