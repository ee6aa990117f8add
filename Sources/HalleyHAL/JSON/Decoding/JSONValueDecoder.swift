import Foundation

/// Decodes `Decodable` values straight from a `JSONValue`, configured by a `JSONDecoder`.
///
/// The typed layer hands the merged tree to this decoder instead of writing it out as JSON text
/// for `JSONDecoder` to parse again. The result is the one `JSONDecoder` gives for the tree's
/// text, `decoder.decode(T.self, from: value.serialized())`: equal values, or a `DecodingError`
/// of the same case with the same coding path and description. Every setting of the
/// `JSONDecoder` applies: `keyDecodingStrategy` (`.convertFromSnakeCase` by Foundation's rules,
/// `.custom`), `dateDecodingStrategy`, `dataDecodingStrategy`,
/// `nonConformingFloatDecodingStrategy` and `userInfo`, and Foundation's own treatment of
/// `Date`, `Data`, `URL`, `Decimal` and `[String: _]`.
///
/// It hands the work to the `JSONDecoder` itself, on `value.serialized()`, in exactly two cases:
/// - the decoder is a subclass of `JSONDecoder`, which may override `decode(_:from:)`;
/// - one of its strategies is a case this code does not know (one a later Foundation adds).
///
/// What the tree cannot tell, no decoder of the tree can: the parser keeps an integer past the
/// 64-bit range, or a number with more digits than a `Double` holds, as the nearest `Double`, a
/// `-0` as the integer 0, and the last of two members with the same name. For those, the result
/// is the one `JSONDecoder` gives for the tree's text, which can differ from what it would give
/// for the server's original text (the PerformanceAndLimits article lists them).
///
/// Member names are compared by code units, as the tree compares them (RFC 8259 §8.3), where
/// `JSONDecoder` compares Swift Strings: two names that differ only in Unicode normalisation
/// are two members, a `CodingKey` reads the one spelled with its own code units, and decoding
/// both as String keys (a `[String: _]`, or any type that lists `allKeys`) throws
/// `dataCorrupted` where `JSONDecoder` would keep one of them.
///
/// Keyed containers give `allKeys` in document order, where `JSONDecoder` gives an unspecified
/// order; so when several members of one `[String: _]` fail, the error names the first in the
/// document, where `JSONDecoder` names any one of them.
///
/// ```swift
/// let tree = try JSONValue(parsing: Data(#"{"first_name": "Ada"}"#.utf8))
/// let decoder = JSONDecoder()
/// decoder.keyDecodingStrategy = .convertFromSnakeCase
/// let person = try JSONValueDecoder(decoder).decode(Person.self, from: tree)
/// ```
package struct JSONValueDecoder {
    private let decoder: JSONDecoder
    /// `nil` when the decoder itself must decode (see the type's documentation).
    private let options: JSONValueDecodingOptions?

    package init(_ decoder: JSONDecoder) {
        self.decoder = decoder
        options = type(of: decoder) == JSONDecoder.self ? JSONValueDecodingOptions(decoder) : nil
    }

    /// Decodes `value` as `type`.
    ///
    /// - Throws: What `JSONDecoder` throws for the same input: a `DecodingError`, or an error
    ///   thrown by a model's own `init(from:)` or by a custom strategy.
    package func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        guard let options else { return try decoder.decode(type, from: value.serialized()) }
        let root = JSONValueDecoderNode(value: value, options: options)
        do {
            return try root.decode(type, from: value, key: NoKey())
        } catch is JSONValueDecodingErrors.NumberDoesNotFit {
            throw JSONValueDecodingErrors.numberDoesNotFitAtTop
        }
    }
}
