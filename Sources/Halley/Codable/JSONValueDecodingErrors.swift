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
