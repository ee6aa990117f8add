import Foundation

/// The errors the tree decoder throws, with the cases, coding paths and descriptions that
/// `JSONDecoder` gives for the same failure, so a ``HalleyError`` reads the same whichever of
/// the two decoded.
enum JSONValueDecodingErrors {
    /// A number that the requested type cannot hold (`300` as `Int8`, `1.5` as `Int`, `1e39` as
    /// `Float`).
    ///
    /// `JSONDecoder` lets an internal error of its own travel up through the models'
    /// initializers and reports it only at the top, as `dataCorrupted` with an empty coding path.
    /// This stands in for that internal error on the way up: like it, it is no `DecodingError`,
    /// so code that catches `DecodingError` lets it pass as it lets `JSONDecoder`'s pass.
    struct NumberDoesNotFit: Error {}

    /// What `JSONDecoder` reports at the top for ``NumberDoesNotFit``.
    static let numberDoesNotFitAtTop = DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: [], debugDescription: "The given data was not valid JSON."))

    /// "Expected to decode `type` but found a string instead."
    static func expected(_ type: Any.Type, found value: JSONValue) -> String {
        "Expected to decode \(type) but found \(kind(of: value)) instead."
    }

    /// The names among `names` (each spelled with its own code units) that Swift's String
    /// `==`, canonical equivalence, takes for another of them, each with the first other
    /// spelling; `nil` when there are none, as for every object whose names are all ASCII.
    ///
    /// The tree keeps both members, as RFC 8259 §8.3 reads them; a `[String: _]` could hold
    /// only one of the two, so decoding one as a Swift String key is an error, not a silent drop.
    static func conflatedNames(_ names: some Collection<String>) -> [CodeUnitKey: String]? {
        // Two all-ASCII names are canonically equivalent only when they are the same bytes.
        guard names.contains(where: { name in name.utf8.contains { $0 >= 0x80 } }) else { return nil }
        var firstSpelling: [String: String] = [:]
        firstSpelling.reserveCapacity(names.count)
        var conflated: [CodeUnitKey: String] = [:]
        for name in names {
            guard let earlier = firstSpelling[name] else {
                firstSpelling[name] = name
                continue
            }
            conflated[CodeUnitKey(name)] = earlier
            if conflated[CodeUnitKey(earlier)] == nil { conflated[CodeUnitKey(earlier)] = name }
        }
        return conflated.isEmpty ? nil : conflated
    }

    /// Why two members cannot both be Swift String keys.
    static func conflated(_ name: String, with other: String) -> String {
        "The members \(spelled(name)) and \(spelled(other)) are different JSON names (RFC 8259 compares "
            + "code units) but equal as Swift Strings, so decoding them as String keys would keep only one."
    }

    /// A name in quotes with every scalar outside printable ASCII escaped (`"mise\u{301}rables"`),
    /// so two spellings that look alike show their difference.
    static func spelled(_ name: String) -> String {
        var text = "\""
        for scalar in name.unicodeScalars {
            if scalar.isASCII, scalar.value >= 0x20, scalar.value < 0x7F, scalar != "\"", scalar != "\\" {
                text.unicodeScalars.append(scalar)
            } else {
                text += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return text + "\""
    }

    /// How `JSONDecoder` names the kind of a value in its messages.
    private static func kind(of value: JSONValue) -> String {
        switch value {
        case .string: return "a string"
        case .int, .double: return "number"
        case .bool: return "bool"
        case .null: return "null"
        case .object: return "a dictionary"
        case .array: return "an array"
        }
    }
}

extension JSONValueDecoderNode {
    func typeMismatch(_ type: Any.Type, found value: JSONValue, key: some CodingKey) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            DecodingError.Context(
                codingPath: codingPath(appending: key),
                debugDescription: JSONValueDecodingErrors.expected(type, found: value)))
    }

    func valueNotFound(_ type: Any.Type, key: some CodingKey) -> DecodingError {
        DecodingError.valueNotFound(
            type,
            DecodingError.Context(
                codingPath: codingPath(appending: key),
                debugDescription: "Cannot get value of type \(type) -- found null value instead"))
    }

    func dataCorrupted(_ description: String, key: some CodingKey) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: codingPath(appending: key), debugDescription: description))
    }

    /// Throws `valueNotFound` for `null`: the first check for every type but `Bool` (which
    /// reports `null` as a type mismatch).
    func requireNonNull(_ value: JSONValue, _ type: Any.Type, key: some CodingKey) throws {
        if case .null = value { throw valueNotFound(type, key: key) }
    }
}
