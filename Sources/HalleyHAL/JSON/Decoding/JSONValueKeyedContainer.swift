import Foundation

/// The members of an object, looked up in the `JSONObject` itself (no dictionary is built per
/// object unless a key strategy renames its members).
struct JSONValueKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let node: JSONValueDecoderNode
    private let object: JSONObject
    private let renamed: RenamedMembers?

    init(node: JSONValueDecoderNode, object: JSONObject) {
        self.node = node
        self.object = object
        renamed =
            node.options.usesDefaultKeys
            ? nil : RenamedMembers(object, keys: node.options.keys, path: node.codingPath)
    }

    var codingPath: [any CodingKey] { node.codingPath }

    var allKeys: [Key] {
        // Halley's own `Link` and `Links` ask for every key; their key type gets a loop
        // specialized for it.
        if Key.self == AnyCodingKey.self {
            var keys: [AnyCodingKey] = []
            keys.reserveCapacity(object.count)
            if let renamed {
                for name in renamed.names { keys.append(.name(name)) }
            } else {
                for position in 0..<object.count { keys.append(.name(object.key(atPosition: position))) }
            }
            return JSONValueDecoderNode.same(keys, as: [Key].self)
        }
        var keys: [Key] = []
        keys.reserveCapacity(object.count)
        let names = renamed?.names ?? object.keys
        for name in names {
            if let key = Key(stringValue: name) { keys.append(key) }
        }
        // Whoever lists the keys may put them into a `[String: _]` (a `Dictionary` decodes
        // itself this way): names it cannot tell apart fail when decoded (see `value(_:)`).
        // Halley's own `AnyCodingKey` readers above keep both members, as the tree does.
        if node.conflatedNames == nil { node.conflatedNames = JSONValueDecodingErrors.conflatedNames(names) }
        return keys
    }

    func contains(_ key: Key) -> Bool { valueIfPresent(key) != nil }

    private func valueIfPresent(_ key: Key) -> JSONValue? { member(named: key.stringValue) }

    private func member(named name: String) -> JSONValue? {
        if let renamed { return renamed[name] }
        guard let position = object.position(of: name, startingAt: node.lookupHint) else { return nil }
        node.lookupHint = position + 1
        return object.value(atPosition: position)
    }

    private func value(_ key: Key) throws -> JSONValue {
        guard let value = valueIfPresent(key) else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: node.codingPath,
                    debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        if node.conflatedNames != nil { try refuseConflated(key) }
        return value
    }

    /// Throws when `allKeys` listed `key` beside a name that equals it as a Swift String.
    private func refuseConflated(_ key: Key) throws {
        guard let other = node.conflatedNames?[CodeUnitKey(key.stringValue)] else { return }
        throw node.dataCorrupted(JSONValueDecodingErrors.conflated(key.stringValue, with: other), key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try node.bool(from: value(key), key: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try node.string(from: value(key), key: key)
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try node.double(from: value(key), key: key)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try node.float(from: value(key), key: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try integer(key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try node.decode(type, from: value(key), key: key)
    }

    private func integer<T: FixedWidthInteger>(_ key: Key) throws -> T {
        try node.integer(T.self, from: value(key), key: key)
    }

    // `decodeIfPresent`: absent and `null` are both `nil`, with one lookup.

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let value = try presentValue(key) else { return nil }
        return try node.bool(from: value, key: key)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = try presentValue(key) else { return nil }
        return try node.string(from: value, key: key)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let value = try presentValue(key) else { return nil }
        return try node.double(from: value, key: key)
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        guard let value = try presentValue(key) else { return nil }
        return try node.float(from: value, key: key)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try integerIfPresent(key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = try presentValue(key) else { return nil }
        return try node.decode(type, from: value, key: key)
    }

    private func integerIfPresent<T: FixedWidthInteger>(_ key: Key) throws -> T? {
        guard let value = try presentValue(key) else { return nil }
        return try node.integer(T.self, from: value, key: key)
    }

    /// The member for `decodeIfPresent`, where absent and `null` are both `nil`. (No closures
    /// here: each would copy the container, and the generic ones cost metadata lookups.)
    private func presentValue(_ key: Key) throws -> JSONValue? {
        guard let value = valueIfPresent(key), !value.isNull else { return nil }
        if node.conflatedNames != nil { try refuseConflated(key) }
        return value
    }

    // Nested containers and super decoders.

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try node.nested(value(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try node.nested(value(key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        superDecoder(AnyCodingKey("super"), value: member(named: "super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        superDecoder(key, value: valueIfPresent(key))
    }

    /// A decoder of its own for the member; `null` when there is none, as in `JSONDecoder`.
    private func superDecoder(_ key: some CodingKey, value: JSONValue?) -> any Decoder {
        node.child(value ?? .null, key: key)
    }
}
