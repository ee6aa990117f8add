import Foundation

/// Strings, Booleans and numbers, read from a value at this position (`key` is ``NoKey``) or
/// under `key` below it, with `JSONDecoder`'s checks in its order: `null` first, then the kind,
/// then whether the number fits.
extension JSONValueDecoderNode {
    func string(from value: JSONValue, key: some CodingKey) throws -> String {
        switch value {
        case .string(let string): return string
        case .null: throw valueNotFound(String.self, key: key)
        default: throw typeMismatch(String.self, found: value, key: key)
        }
    }

    /// `null` is a type mismatch here, not a missing value, as in `JSONDecoder`.
    func bool(from value: JSONValue, key: some CodingKey) throws -> Bool {
        guard case .bool(let bool) = value else { throw typeMismatch(Bool.self, found: value, key: key) }
        return bool
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type, from value: JSONValue, key: some CodingKey) throws -> T {
        switch value {
        case .int(let int):
            guard let integer = JSONNumberConversion.integer(T.self, from: int) else {
                throw JSONValueDecodingErrors.NumberDoesNotFit()
            }
            return integer
        case .double(let double):
            guard let integer = JSONNumberConversion.integer(T.self, from: double) else {
                throw JSONValueDecodingErrors.NumberDoesNotFit()
            }
            return integer
        case .null: throw valueNotFound(T.self, key: key)
        default: throw typeMismatch(T.self, found: value, key: key)
        }
    }

    func double(from value: JSONValue, key: some CodingKey) throws -> Double {
        switch value {
        case .int(let int): return Double(int)
        case .double(let double): return double
        case .null: throw valueNotFound(Double.self, key: key)
        case .string(let string):
            if let special: Double = nonConformingFloat(string) { return special }
            throw typeMismatch(Double.self, found: value, key: key)
        default: throw typeMismatch(Double.self, found: value, key: key)
        }
    }

    func float(from value: JSONValue, key: some CodingKey) throws -> Float {
        switch value {
        case .int(let int): return JSONNumberConversion.float(from: int)
        case .double(let double):
            guard let float = JSONNumberConversion.float(from: double) else {
                throw JSONValueDecodingErrors.NumberDoesNotFit()
            }
            return float
        case .null: throw valueNotFound(Float.self, key: key)
        case .string(let string):
            if let special: Float = nonConformingFloat(string) { return special }
            throw typeMismatch(Float.self, found: value, key: key)
        default: throw typeMismatch(Float.self, found: value, key: key)
        }
    }

    /// The infinity or NaN that `string` stands for under `.convertFromString`.
    ///
    /// `JSONDecoder` compares the bytes of strings written without escapes only; in the
    /// serialized tree, those are strings with no quote, backslash or control character.
    private func nonConformingFloat<T: FloatingPoint>(_ string: String) -> T? {
        guard let names = options.nonConformingFloats,
            !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
        else { return nil }
        if string.utf8.elementsEqual(names.positiveInfinity.utf8) { return T.infinity }
        if string.utf8.elementsEqual(names.negativeInfinity.utf8) { return -T.infinity }
        if string.utf8.elementsEqual(names.nan.utf8) { return T.nan }
        return nil
    }
}

extension JSONValueDecoderNode: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value.isNull }

    func decode(_ type: Bool.Type) throws -> Bool { try bool(from: value, key: NoKey()) }
    func decode(_ type: String.Type) throws -> String { try string(from: value, key: NoKey()) }
    func decode(_ type: Double.Type) throws -> Double { try double(from: value, key: NoKey()) }
    func decode(_ type: Float.Type) throws -> Float { try float(from: value, key: NoKey()) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type, from: value, key: NoKey()) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type, from: value, key: NoKey()) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type, from: value, key: NoKey()) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type, from: value, key: NoKey()) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type, from: value, key: NoKey()) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type) throws -> Int128 { try integer(type, from: value, key: NoKey()) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type, from: value, key: NoKey()) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type, from: value, key: NoKey()) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type, from: value, key: NoKey()) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type, from: value, key: NoKey()) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type, from: value, key: NoKey()) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { try integer(type, from: value, key: NoKey()) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decode(type, from: value, key: NoKey()) }
}
