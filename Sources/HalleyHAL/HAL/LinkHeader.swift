import Foundation

/// The HTTP `Link` header field (RFC 8288, section 3): its link-values read into links of the
/// resource a response carries, and every value that cannot be read into a problem.
///
/// The grammar is RFC 8288's over RFC 9110's list and parameter rules (sections 5.6.1, 5.6.4
/// and 5.6.6): a comma-separated list, empty elements allowed; each element a target between
/// `<` and `>`, then `;`-separated parameters whose values are tokens or quoted strings with
/// backslash escapes. Unquoted values are read as RFC 8288 appendix B reads them, up to the
/// next `;` or `,` (servers write `type=application/json` unquoted), as long as they hold no
/// spaces or quotes.
///
/// The field is read once, byte by byte, left to right: after a malformed element the reader
/// skips to the next comma outside a quoted string and goes on from there, so one broken
/// value costs only itself, and a megabyte of garbage takes one pass.
package enum LinkHeader {
    /// One link-value as written: the target between the angle brackets and the parameters
    /// in order, names lowercased (RFC 8288 appendix B.3 compares them without regard to case).
    struct Value: Sendable, Hashable {
        /// The target as written.
        var target: String
        /// The parameters in written order; a parameter without `=` has the empty value.
        var parameters: [Parameter]
        /// The byte offset of the `<` that starts the value in the field.
        var offset: Int

        /// The first parameter named `name` (lowercase): RFC 8288 ignores later occurrences of
        /// `rel`, `anchor`, `type`, `title` and `title*`.
        func parameter(_ name: String) -> String? {
            parameters.first { $0.name == name }?.value
        }
    }

    /// One parameter of a link-value.
    struct Parameter: Sendable, Hashable {
        /// The name, lowercased.
        var name: String
        /// The value, a quoted string's without its quotes and escapes.
        var value: String
    }

    /// A value that could not be read: what is wrong and the byte offset where it is.
    struct Problem: Sendable, Hashable {
        var code: HALDocumentError.Code = .invalidLinkHeader
        var message: String
        var offset: Int
    }

    /// Problems listed one by one before the rest are only counted: a header of garbage
    /// must not become a million problems.
    static let problemLimit = 10

    /// The first ``problemLimit`` problems, and how many more there were.
    struct Problems: Sendable, Hashable {
        private(set) var listed: [Problem] = []
        private(set) var unlisted = 0

        mutating func append(
            _ message: @autoclosure () -> String, at offset: Int, code: HALDocumentError.Code = .invalidLinkHeader
        ) {
            guard listed.count < problemLimit else {
                unlisted += 1
                return
            }
            listed.append(Problem(code: code, message: message(), offset: offset))
        }
    }

    /// Reads a `Link` field value (several fields combined with `", "`, as requesters do).
    static func parse(_ field: String) -> (values: [Value], problems: Problems) {
        var reader = Reader(bytes: Array(field.utf8))
        return reader.read()
    }

    /// The links of the resource at `url` that `field` lists, and its problems, ready for
    /// ``Links``: targets resolved against `url` (the response's final URL), relation lists
    /// split, registered relation names lowercased, `title*` decoded.
    ///
    /// - Parameters:
    ///   - field: The `Link` field value.
    ///   - url: The URL of the response (after redirects), the default context and the base.
    ///   - selfURL: The resource's own `self` URL, which an `anchor` may also name.
    package static func links(in field: String, url: URL, selfURL: URL?) -> (
        links: [(rel: LinkRelation, link: Link)], problems: [HALDocumentError]
    ) {
        let (values, syntaxProblems) = parse(field)
        // Read apart from the syntax problems, merged in field order at the end.
        var valueProblems = Problems()
        var links: [(rel: LinkRelation, link: Link)] = []
        links.reserveCapacity(values.count)
        for value in values {
            func report(_ code: HALDocumentError.Code, _ message: @autoclosure () -> String) {
                valueProblems.append(message(), at: value.offset, code: code)
            }
            guard let relValue = value.parameter("rel") else {
                report(
                    .invalidLinkHeader, "the link to <\(shortened(value.target))> has no rel parameter and was left out"
                )
                continue
            }
            let rels = relationTypes(in: relValue)
            guard !rels.isEmpty else {
                report(.invalidLinkHeader, "the link to <\(shortened(value.target))> has an empty rel and was left out")
                continue
            }
            if let anchor = value.parameter("anchor") {
                guard let context = anchor.isEmpty ? url : URLResolution.resolve(anchor, against: url) else {
                    report(
                        .invalidLinkHeader,
                        "the anchor \"\(shortened(anchor))\" is not a URI reference; the link was left out")
                    continue
                }
                // A link anchored at another resource is that resource's link (RFC 8288,
                // section 3.2): well formed, just not this resource's, so neither kept nor a problem.
                let text = context.absoluteString
                guard text == url.absoluteString || text == selfURL?.absoluteString else { continue }
            }
            guard let target = value.target.isEmpty ? url : URLResolution.resolve(value.target, against: url) else {
                report(
                    .invalidLinkHeader,
                    "the target <\(shortened(value.target))> is not a URI reference; the link was left out")
                continue
            }
            var json: JSONObject = ["href": .string(target.absoluteString)]
            var extended: Set<String> = []
            for parameter in value.parameters {
                let (name, text) = (parameter.name, parameter.value)
                if name.hasSuffix("*") {
                    let plain = String(name.dropLast())
                    guard !ignoredParameters.contains(plain), !extended.contains(plain) else { continue }
                    guard let decoded = decodeExtendedValue(text) else {
                        report(
                            .invalidLinkHeader,
                            "\(shortened(name)) of the link to <\(shortened(value.target))> is not an RFC 8187 value "
                                + "(charset'language'percent-encoded UTF-8 or ISO-8859-1) and was ignored")
                        continue
                    }
                    // RFC 8288, 3.4.1: the extended form wins over the plain one.
                    json[plain] = .string(decoded)
                    extended.insert(plain)
                } else if !ignoredParameters.contains(name), json[name] == nil {
                    json[name] = .string(text)
                }
            }
            for rel in rels {
                links.append((LinkRelation(rel), Link(validated: json)))
            }
        }
        let merged = (syntaxProblems.listed + valueProblems.listed).sorted { $0.offset < $1.offset }
        var problems = merged.prefix(problemLimit).map { problem in
            HALDocumentError(
                code: problem.code, path: path(problem.offset), message: problem.message, url: url)
        }
        let unlisted = syntaxProblems.unlisted + valueProblems.unlisted + max(merged.count - problemLimit, 0)
        if unlisted > 0 {
            problems.append(
                HALDocumentError(
                    code: .invalidLinkHeader, path: "Link header",
                    message: "\(unlisted) more problems of the Link header were not listed one by one", url: url))
        }
        return (links, problems)
    }

    /// Parameters that are not attributes of the target: the relation and the context are
    /// what the link is (`rev` is RFC 8288's deprecated reverse relation), and `href` and
    /// `templated` would stand for the HAL members of the same names.
    private static let ignoredParameters: Set<String> = ["rel", "rev", "anchor", "href", "templated"]

    /// The relation types of a `rel` value: separated by spaces, registered names (those
    /// without a colon) lowercased as RFC 8288, 2.1.1 compares them without regard to case;
    /// extension types (URIs) are kept as written.
    static func relationTypes(in value: String) -> [String] {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { name in
            guard !name.contains(":") else { return String(name) }
            return String(decoding: name.utf8.map(lowercased), as: UTF8.self)
        }
    }

    /// An RFC 8187 ext-value (`UTF-8'en'%E2%82%AC%20rates`) decoded; `nil` when it is not
    /// one, or names a charset other than UTF-8 and ISO-8859-1 (the two RFC 8187 asks for).
    static func decodeExtendedValue(_ text: String) -> String? {
        let parts = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let charset = String(decoding: parts[0].utf8.map(lowercased), as: UTF8.self)
        var bytes: [UInt8] = []
        var encoded = parts[2].utf8[...]
        while let byte = encoded.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard let high = encoded.popFirst().flatMap(PercentEncoding.hexValue),
                    let low = encoded.popFirst().flatMap(PercentEncoding.hexValue)
                else { return nil }
                bytes.append(high << 4 | low)
            } else if isAttributeCharacter(byte) {
                bytes.append(byte)
            } else {
                return nil
            }
        }
        switch charset {
        case "utf-8":
            return String(validating: bytes, as: UTF8.self)
        case "iso-8859-1":
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default:
            return nil
        }
    }

    /// `text` for a message: whole when short, else its start and an ellipsis.
    static func shortened(_ text: String) -> String {
        text.count <= 80 ? text : text.prefix(77) + "..."
    }

    /// The `path` of a problem at `offset`: where in the response it is.
    static func path(_ offset: Int) -> String { "Link header, byte \(offset)" }

    /// The value of `field` that a problem at ``path(_:)`` is about: the part between the
    /// value starts (`<` at the start or after a comma) around its byte, or the whole field when
    /// the path names no byte.
    package static func value(atPath path: String, in field: String) -> String {
        let prefix = "Link header, byte "
        let bytes = Array(field.utf8)
        guard path.hasPrefix(prefix), let offset = Int(path.dropFirst(prefix.count)), offset < bytes.count else {
            return field
        }
        // Where each value starts: a `<` with only spaces between it and a comma or the start.
        var starts: [Int] = []
        var afterComma = true
        for (index, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "<"), afterComma { starts.append(index) }
            if byte == UInt8(ascii: ",") {
                afterComma = true
            } else if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") {
                afterComma = false
            }
        }
        let start = starts.last { $0 <= offset } ?? 0
        var end = starts.first { $0 > offset } ?? bytes.count
        // Up to the comma before the next value.
        while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: ",") { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// RFC 8187's attr-char: ALPHA, DIGIT and `!#$&+-.^_`|~`.
    private static func isAttributeCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$&+-.^_`|~".utf8.contains(byte)
        }
    }

    /// RFC 9110's tchar, the characters of a token.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        isAttributeCharacter(byte) || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "'")
            || byte == UInt8(ascii: "*")
    }
}

extension LinkHeader {
    /// The single pass over a field's bytes.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var values: [Value] = []
        var problems = Problems()

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// A malformed value: what is wrong and where.
        struct Failure: Error {
            var message: String
            var offset: Int
        }

        mutating func read() -> (values: [Value], problems: Problems) {
            while true {
                skipWhitespace()
                guard index < bytes.count else { break }
                // An empty list element (RFC 9110, 5.6.1): nothing to read.
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                do {
                    values.append(try readValue())
                } catch {
                    problems.append(error.message, at: error.offset)
                    // Past the offending byte, unless it is the comma that ends the value: a
                    // stray quote there opens no quoted string.
                    if index < bytes.count, error.offset == index, bytes[index] != UInt8(ascii: ",") { index += 1 }
                    skipToNextElement()
                }
            }
            return (values, problems)
        }

        /// `<target>` and its parameters, up to (not past) the comma that ends it.
        mutating func readValue() throws(Failure) -> Value {
            let start = index
            guard bytes[index] == UInt8(ascii: "<") else {
                throw Failure(message: "a link must start with <target>, not \(shown(at: index))", offset: index)
            }
            index += 1
            let targetStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: ">") {
                let byte = bytes[index]
                // Not in a URI reference, and where a missing ">" shows: stop there.
                if byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "<") || byte == UInt8(ascii: "\"") {
                    throw Failure(
                        message: "the target that starts at byte \(start) is not closed by \">\" before "
                            + shown(at: index),
                        offset: index)
                }
                index += 1
            }
            guard index < bytes.count else {
                throw Failure(
                    message: "the target that starts at byte \(start) is not closed by \">\"", offset: bytes.count)
            }
            let target = text(targetStart..<index)
            index += 1
            var parameters: [Parameter] = []
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] != UInt8(ascii: ",") else { break }
                guard bytes[index] == UInt8(ascii: ";") else {
                    throw Failure(
                        message:
                            "expected \";\" or \",\" after the link to <\(shortened(target))>, found \(shown(at: index))",
                        offset: index)
                }
                index += 1
                skipWhitespace()
                // An empty parameter (`<a>; rel=next;`), which RFC 9110's parameters allow.
                guard index < bytes.count, bytes[index] != UInt8(ascii: ";"), bytes[index] != UInt8(ascii: ",")
                else { continue }
                parameters.append(try readParameter(of: target))
            }
            return Value(target: target, parameters: parameters, offset: start)
        }

        /// `name`, `name=token` or `name="quoted"`.
        mutating func readParameter(of target: String) throws(Failure) -> Parameter {
            let nameStart = index
            while index < bytes.count, isTokenCharacter(bytes[index]) { index += 1 }
            guard index > nameStart else {
                throw Failure(
                    message:
                        "expected a parameter name of the link to <\(shortened(target))>, found \(shown(at: index))",
                    offset: index)
            }
            let name = String(decoding: bytes[nameStart..<index].map(lowercased), as: UTF8.self)
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                return Parameter(name: name, value: "")
            }
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                return Parameter(name: name, value: try readQuotedString())
            }
            let valueStart = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: ";") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: " ")
                    || byte == UInt8(ascii: "\t")
                {
                    break
                }
                guard byte > 0x20, byte != 0x7F, byte != UInt8(ascii: "\"") else {
                    throw Failure(
                        message:
                            "the value of \(shortened(name)) of the link to <\(shortened(target))> holds \(shown(at: index)); "
                            + "quote it",
                        offset: index)
                }
                index += 1
            }
            guard index > valueStart else {
                throw Failure(
                    message:
                        "\(shortened(name))= of the link to <\(shortened(target))> has no value, found \(shown(at: index))",
                    offset: index)
            }
            return Parameter(name: name, value: text(valueStart..<index))
        }

        /// A quoted string (RFC 9110, 5.6.4) without its quotes, escapes undone.
        mutating func readQuotedString() throws(Failure) -> String {
            let start = index
            index += 1
            var value: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return String(decoding: value, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index + 1 < bytes.count else {
                        index += 1
                        continue
                    }
                    value.append(bytes[index + 1])
                    index += 2
                case 0x09, 0x20...0x7E, 0x80...0xFF:
                    value.append(byte)
                    index += 1
                default:
                    throw Failure(
                        message: "the quoted string that starts at byte \(start) holds \(shown(at: index))",
                        offset: index)
                }
            }
            throw Failure(message: "the quoted string that starts at byte \(start) is not closed", offset: start)
        }

        /// Past the comma that ends the current element, outside quoted strings; at the end
        /// when there is none. Each byte is looked at once.
        mutating func skipToNextElement() {
            var quoted = false
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if quoted {
                    if byte == UInt8(ascii: "\\") {
                        index += 1
                    } else if byte == UInt8(ascii: "\"") {
                        quoted = false
                    }
                } else if byte == UInt8(ascii: "\"") {
                    quoted = true
                } else if byte == UInt8(ascii: ",") {
                    return
                }
            }
        }

        mutating func skipWhitespace() {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
                index += 1
            }
        }

        func text(_ range: Range<Int>) -> String {
            String(decoding: bytes[range], as: UTF8.self)
        }

        /// The byte at `offset` for a message: `"x"`, a code for a control, or the end.
        func shown(at offset: Int) -> String {
            guard offset < bytes.count else { return "the end of the field" }
            let byte = bytes[offset]
            if byte > 0x20 && byte < 0x7F { return "\"\(Character(Unicode.Scalar(byte)))\"" }
            if byte == 0x20 { return "a space" }
            let hex = String(byte, radix: 16, uppercase: true)
            return "byte 0x" + (hex.count == 1 ? "0" + hex : hex)
        }
    }
}
