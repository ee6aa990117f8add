/// Turns template text into ``URITemplatePart``s, validating it against the
/// RFC 6570 section 2 grammar.
///
/// The parser walks UTF-8 bytes: every delimiter in the grammar is ASCII and
/// any non-ASCII byte is either literal text (percent-encoded) or an error
/// inside an expression, so decoding scalars would buy nothing. Errors are
/// reported at the first byte where the text stops matching the grammar,
/// except for an unclosed expression, which is reported at its `{` because
/// that is the character a person has to fix.
struct URITemplateParser {
    private let template: String
    private let bytes: [UInt8]

    // The program under construction; see URITemplateProgram.
    private var pool: [UInt8] = []
    private var parts: [URITemplatePart] = []
    private var varSpecs: [URITemplateVarSpec] = []

    init(_ template: String) {
        self.template = template
        self.bytes = Array(template.utf8)
    }

    /// Parses the whole template.
    ///
    /// - Returns: The program to expand and the distinct variable names in
    ///   order of first appearance.
    consuming func parse() throws(URITemplateError) -> (URITemplateProgram, [String]) {
        pool.reserveCapacity(bytes.count)
        var literalStart = 0
        var literalByteCount = 0
        var index = 0

        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                if pool.count > literalStart {
                    parts.append(.literal(literalStart..<pool.count))
                    literalByteCount += pool.count - literalStart
                }
                index = try parseExpression(openingAt: index)
                literalStart = pool.count
                continue
            case UInt8(ascii: "}"):
                throw error(.unexpectedClosingBrace, at: index, "unexpected '}' outside an expression")
            case PercentEncoding.percent:
                guard isTriplet(at: index) else {
                    throw error(
                        .invalidPercentEncoding, at: index,
                        "'%' not followed by two hexadecimal digits"
                    )
                }
                // Already encoded: copy unchanged (RFC 6570 section 3.1).
                pool.append(contentsOf: bytes[index..<(index + 3)])
                index += 3
                continue
            case 0x00...0x1F, 0x7F:
                throw error(
                    .invalidLiteralCharacter, at: index,
                    "control character U+\(hex4(byte)) in literal text"
                )
            default:
                // RFC 6570 section 3.1: characters allowed anywhere in a URI
                // are copied, everything else (space, quote, non-ASCII, ...)
                // is percent-encoded as UTF-8.
                if PercentEncoding.isUnreserved(byte) || PercentEncoding.isReserved(byte) {
                    pool.append(byte)
                } else {
                    PercentEncoding.appendEscaped(byte, to: &pool)
                }
            }
            index += 1
        }
        if pool.count > literalStart {
            parts.append(.literal(literalStart..<pool.count))
            literalByteCount += pool.count - literalStart
        }

        var variableNames: [String] = []
        var seenNames: Set<String> = []
        for spec in varSpecs where seenNames.insert(spec.name).inserted {
            variableNames.append(spec.name)
        }
        let program = URITemplateProgram(
            bytes: pool,
            parts: parts,
            varSpecs: varSpecs,
            literalByteCount: literalByteCount
        )
        return (program, variableNames)
    }

    // MARK: - Expressions

    /// Parses `{ [operator] varspec *( "," varspec ) }` starting at the `{`,
    /// records it, and returns the index just past its `}`.
    private mutating func parseExpression(openingAt open: Int) throws(URITemplateError) -> Int {
        var index = open + 1
        let expressionOperator: URITemplateOperator

        let first = try byte(at: index, open: open)
        if first == UInt8(ascii: "}") {
            throw error(.emptyExpression, at: open, "empty expression '{}'")
        }
        if let parsed = URITemplateOperator(byte: first) {
            expressionOperator = parsed
            index += 1
            if try byte(at: index, open: open) == UInt8(ascii: "}") {
                throw error(
                    .emptyExpression, at: open,
                    "expression with operator '\(Character(Unicode.Scalar(first)))' has no variables"
                )
            }
        } else if isReservedOperator(first) {
            throw error(
                .reservedOperator, at: index,
                "reserved operator '\(Character(Unicode.Scalar(first)))'"
            )
        } else if isVarNameStart(first) {
            expressionOperator = .simple
        } else if first > 0x20 && first < 0x7F {
            throw error(
                .invalidOperator, at: index,
                "invalid operator '\(Character(Unicode.Scalar(first)))'"
            )
        } else {
            throw error(
                .invalidVariableName, at: index,
                "invalid character \(describe(first)) at the start of a variable name"
            )
        }

        let firstSpec = varSpecs.count
        while true {
            index = try parseVarSpec(at: index, open: open)
            // parseVarSpec only stops at ',' or '}'.
            if try byte(at: index, open: open) == UInt8(ascii: "}") {
                parts.append(.expression(expressionOperator, firstSpec..<varSpecs.count))
                return index + 1
            }
            index += 1
        }
    }

    /// Parses `varname [modifier]`, checks that a ',' or '}' follows,
    /// records the varspec, and returns the index of that delimiter.
    private mutating func parseVarSpec(at start: Int, open: Int) throws(URITemplateError) -> Int {
        var index = start
        // varname = varchar *( ["."] varchar )
        while true {
            try parseVarChar(at: &index, open: open)
            let next = try byte(at: index, open: open)
            if next == UInt8(ascii: ".") {
                index += 1
                let afterDot = try byte(at: index, open: open)
                guard isVarNameStart(afterDot) else {
                    throw error(
                        .invalidVariableName, at: index,
                        "'.' in a variable name must be followed by a name character"
                    )
                }
            } else if !isVarNameStart(next) {
                break
            }
        }
        let nameEnd = index
        let name = String(decoding: bytes[start..<nameEnd], as: UTF8.self)

        var modifier = URITemplateModifier.none
        switch try byte(at: index, open: open) {
        case UInt8(ascii: ":"):
            let (length, end) = try parsePrefixLength(at: index + 1, open: open)
            modifier = .prefix(length)
            index = end
        case UInt8(ascii: "*"):
            modifier = .explode
            index += 1
            if try byte(at: index, open: open) == UInt8(ascii: ":") {
                throw error(
                    .conflictingModifiers, at: index,
                    "prefix modifier after explode modifier on '\(name)'"
                )
            }
        default:
            break
        }

        let delimiter = try byte(at: index, open: open)
        guard delimiter == UInt8(ascii: ",") || delimiter == UInt8(ascii: "}") else {
            throw error(
                .invalidVariableName, at: index,
                "unexpected character \(describe(delimiter)) after variable '\(name)'"
            )
        }
        let nameStart = pool.count
        pool.append(contentsOf: bytes[start..<nameEnd])
        varSpecs.append(
            URITemplateVarSpec(
                name: name,
                nameBytes: nameStart..<pool.count,
                modifier: modifier,
                utf8Offset: start
            ))
        return index
    }

    /// Consumes one `varchar` (ALPHA / DIGIT / "_" / pct-encoded).
    private func parseVarChar(at index: inout Int, open: Int) throws(URITemplateError) {
        let byte = try byte(at: index, open: open)
        if byte == PercentEncoding.percent {
            guard isTriplet(at: index) else {
                throw error(
                    .invalidPercentEncoding, at: index,
                    "'%' in a variable name not followed by two hexadecimal digits"
                )
            }
            index += 3
        } else if isVarNameStart(byte) {
            index += 1
        } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: ",") {
            throw error(.invalidVariableName, at: index, "missing variable name")
        } else {
            throw error(
                .invalidVariableName, at: index,
                "invalid character \(describe(byte)) in a variable name"
            )
        }
    }

    /// Parses `max-length = %x31-39 0*3DIGIT` (1...9999, no leading zero)
    /// and checks what follows; returns the length and the index after it.
    private func parsePrefixLength(
        at start: Int,
        open: Int
    ) throws(URITemplateError) -> (Int, Int) {
        var index = start
        var length = 0
        while true {
            let digit = try byte(at: index, open: open)
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { break }
            // Stop accumulating past 4 digits so huge inputs cannot overflow;
            // the length check below rejects them anyway.
            if index - start < 4 {
                length = length * 10 + Int(digit - UInt8(ascii: "0"))
            }
            index += 1
        }
        let digitCount = index - start
        guard digitCount > 0, digitCount <= 4, bytes[start] != UInt8(ascii: "0") else {
            throw error(
                .invalidPrefix, at: start,
                "prefix length must be a number from 1 to 9999 without leading zeros"
            )
        }
        let next = try byte(at: index, open: open)
        if next == UInt8(ascii: "*") {
            throw error(.conflictingModifiers, at: index, "explode modifier after prefix modifier")
        }
        guard next == UInt8(ascii: ",") || next == UInt8(ascii: "}") else {
            throw error(
                .invalidPrefix, at: start,
                "prefix length must be a number from 1 to 9999 followed by ',' or '}'"
            )
        }
        return (length, index)
    }

    // MARK: - Helpers

    /// Reads a byte inside an expression; running off the end, or into the
    /// next `{`, means the expression at `open` was never closed.
    private func byte(at index: Int, open: Int) throws(URITemplateError) -> UInt8 {
        guard index < bytes.count, bytes[index] != UInt8(ascii: "{") else {
            throw error(.unclosedExpression, at: open, "unclosed expression: '{' has no matching '}'")
        }
        return bytes[index]
    }

    private func isTriplet(at index: Int) -> Bool {
        index + 2 < bytes.count
            && bytes[index] == PercentEncoding.percent
            && PercentEncoding.isHexDigit(bytes[index + 1])
            && PercentEncoding.isHexDigit(bytes[index + 2])
    }

    /// ALPHA / DIGIT / "_" / "%" (the start of a pct-encoded triplet).
    private func isVarNameStart(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), PercentEncoding.percent:
            return true
        default:
            return false
        }
    }

    /// RFC 6570 section 2.2 `op-reserve`.
    private func isReservedOperator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "="), UInt8(ascii: ","), UInt8(ascii: "!"),
            UInt8(ascii: "@"), UInt8(ascii: "|"):
            return true
        default:
            return false
        }
    }

    private func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x21..<0x7F:
            return "'\(Character(Unicode.Scalar(byte)))'"
        case 0x20:
            return "' ' (space)"
        case 0x80...:
            return "non-ASCII character"
        default:
            return "control character U+\(hex4(byte))"
        }
    }

    private func hex4(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    private func error(
        _ code: URITemplateError.Code,
        at utf8Offset: Int,
        _ problem: String
    ) -> URITemplateError {
        URITemplateError(code, in: template, utf8Offset: utf8Offset, problem)
    }
}
