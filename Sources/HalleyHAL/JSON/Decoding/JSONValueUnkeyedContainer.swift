import Foundation

/// The elements of an array, read in order.
///
/// Three words, so the `any UnkeyedDecodingContainer` that holds it needs no allocation.
struct JSONValueUnkeyedContainer: UnkeyedDecodingContainer {
    let node: JSONValueDecoderNode
    private let elements: [JSONValue]
    /// Past the end after `decodeIfPresent` at the end, which counts as a step here as it
    /// does in `JSONDecoder`.
    private(set) var currentIndex = 0

    init(node: JSONValueDecoderNode, elements: [JSONValue]) {
        self.node = node
        self.elements = elements
    }

    var codingPath: [any CodingKey] { node.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentKey: IndexCodingKey { IndexCodingKey(currentIndex) }

    /// The current element, without stepping past it.
    private func next(_ type: Any.Type, atEnd message: String = "Unkeyed container is at end.") throws -> JSONValue {
        guard currentIndex < elements.count else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(codingPath: node.codingPath(appending: currentKey), debugDescription: message))
        }
        return elements[currentIndex]
    }

    /// Decodes the current element and steps past it only when that succeeds.
    private mutating func step<T>(
        _ type: T.Type, _ decode: (JSONValueDecoderNode, JSONValue, IndexCodingKey) throws -> T
    ) throws -> T {
        let result = try decode(node, try next(type), currentKey)
        currentIndex += 1
        return result
    }

    /// `nil` for the end or `null`; either way, a step.
    private mutating func stepIfPresent<T>(
        _ decode: (JSONValueDecoderNode, JSONValue, IndexCodingKey) throws -> T
    ) throws -> T? {
        guard currentIndex < elements.count, !elements[currentIndex].isNull else {
            currentIndex += 1
            return nil
        }
        let result = try decode(node, elements[currentIndex], currentKey)
        currentIndex += 1
        return result
    }

    mutating func decodeNil() throws -> Bool {
        guard try next(Never.self).isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try step(type) { try $0.bool(from: $1, key: $2) } }
    mutating func decode(_ type: String.Type) throws -> String {
        try step(type) { try $0.string(from: $1, key: $2) }
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        try step(type) { try $0.double(from: $1, key: $2) }
    }
    mutating func decode(_ type: Float.Type) throws -> Float { try step(type) { try $0.float(from: $1, key: $2) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer() }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try integer() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try integer() }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // Written out, as the generic `decodeIfPresent` below: the element decode of every array.
        let result = try node.decode(type, from: try next(type), key: currentKey)
        currentIndex += 1
        return result
    }

    private mutating func integer<T: FixedWidthInteger>() throws -> T {
        try step(T.self) { try $0.integer(T.self, from: $1, key: $2) }
    }

    // `decodeIfPresent` is written out for the types `JSONDecoder` writes it out for, so the
    // index moves the same way; `Int128` and `UInt128` keep the standard library's version.

    mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? {
        try stepIfPresent { try $0.bool(from: $1, key: $2) }
    }
    mutating func decodeIfPresent(_ type: String.Type) throws -> String? {
        try stepIfPresent { try $0.string(from: $1, key: $2) }
    }
    mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? {
        try stepIfPresent { try $0.double(from: $1, key: $2) }
    }
    mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? {
        try stepIfPresent { try $0.float(from: $1, key: $2) }
    }
    mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try integerIfPresent() }
    mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try integerIfPresent() }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        guard currentIndex < elements.count, !elements[currentIndex].isNull else {
            currentIndex += 1
            return nil
        }
        let result = try node.decode(type, from: elements[currentIndex], key: currentKey)
        currentIndex += 1
        return result
    }

    private mutating func integerIfPresent<T: FixedWidthInteger>() throws -> T? {
        try stepIfPresent { try $0.integer(T.self, from: $1, key: $2) }
    }

    // Nested containers and the super decoder.

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try step(KeyedDecodingContainer<NestedKey>.self) { try $0.nested($1, key: $2).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try step((any UnkeyedDecodingContainer).self) { try $0.nested($1, key: $2).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        let value = try next((any Decoder).self, atEnd: "Cannot get superDecoder() -- unkeyed container is at end.")
        defer { currentIndex += 1 }
        return node.child(value, key: currentKey)
    }
}
