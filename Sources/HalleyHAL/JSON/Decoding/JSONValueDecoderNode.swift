import Foundation

/// The `Decoder` at one position of a `JSONValue` tree: one per value that a type decodes
/// through `init(from:)`, never one per scalar.
///
/// Each node knows its parent and its key, so the coding path is a walk up the chain, made
/// only when someone asks for it (an error, a custom key strategy, a model reading
/// `codingPath`). Containers keep the node they came from, so a container that outlives its
/// turn still reports its own path.
final class JSONValueDecoderNode {
    let value: JSONValue
    let options: JSONValueDecodingOptions
    let parent: JSONValueDecoderNode?
    /// The key or index of this position in its parent; `nil` at the top.
    let key: (any CodingKey)?
    /// The decoder whose `init(from:)` is running while this node is in use, when that is not
    /// this node: a nested container's node belongs to the decoder that asked for it.
    ///
    /// `JSONDecoder` reports an ISO 8601 date that does not parse at that decoder's path rather
    /// than at the date's own, and this is how the same path is found here.
    private let runningDecoder: JSONValueDecoderNode?
    /// Where the last keyed lookup in this node's object ended; see `JSONObject.position(of:startingAt:)`.
    ///
    /// Unchecked for exclusivity: it is read and written in single statements, never held
    /// across a call, and a decoder is used by one thread at a time (it is not `Sendable`).
    @exclusivity(unchecked) var lookupHint = 0
    /// Member names of this node's object that a keyed container listed in `allKeys` and that
    /// Swift's String `==` takes for another member's name (see
    /// `JSONValueDecodingErrors.conflatedNames(_:)`), each with that other spelling; `nil` for
    /// almost every object. Decoding such a member then throws: whoever listed the keys (a
    /// `[String: _]`, most likely) would keep one of the two and lose the other unseen.
    ///
    /// Unchecked for exclusivity, as ``lookupHint``: written once by `allKeys`, read in single
    /// statements, by the one thread using the decoder.
    @exclusivity(unchecked) var conflatedNames: [CodeUnitKey: String]? = nil

    init(
        value: JSONValue, options: JSONValueDecodingOptions, parent: JSONValueDecoderNode? = nil,
        key: (any CodingKey)? = nil, runningDecoder: JSONValueDecoderNode? = nil
    ) {
        self.value = value
        self.options = options
        self.parent = parent
        self.key = key
        self.runningDecoder = runningDecoder
    }

    /// A decoder for `value`, found under `key` at this position.
    func child(_ value: JSONValue, key: some CodingKey) -> JSONValueDecoderNode {
        JSONValueDecoderNode(value: value, options: options, parent: self, key: key)
    }

    /// The position of `value` under `key` for a container (or dictionary) that this node's
    /// running decoder reads through.
    func nested(_ value: JSONValue, key: some CodingKey) -> JSONValueDecoderNode {
        JSONValueDecoderNode(value: value, options: options, parent: self, key: key, runningDecoder: decoderInCharge)
    }

    /// A decoder for `value` under `key`, or this node itself for ``NoKey`` (the value is this
    /// node's own).
    func decoder<Key: CodingKey>(for value: JSONValue, key: Key) -> JSONValueDecoderNode {
        Key.self == NoKey.self ? self : child(value, key: key)
    }

    var decoderInCharge: JSONValueDecoderNode { runningDecoder ?? self }

    /// The coding path of this position.
    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node: JSONValueDecoderNode? = self
        while let current = node {
            if let key = current.key { keys.append(key) }
            node = current.parent
        }
        keys.reverse()
        return keys
    }

    /// The coding path of this position, then `key` unless it is ``NoKey``.
    func codingPath<Key: CodingKey>(appending key: Key) -> [any CodingKey] {
        var path = codingPath
        if Key.self != NoKey.self { path.append(key) }
        return path
    }

    /// Decodes `value` as `T` the way `JSONDecoder` does: the types it treats specially
    /// (`Date`, `Data`, `URL`, `Decimal`, and `[String: _]` under a key strategy) by its
    /// strategies, everything else through `T.init(from:)`.
    ///
    /// - Parameters:
    ///   - value: The value, at this position (`key` is ``NoKey``) or under `key` below it.
    ///   - key: The value's key or index below this position.
    func decode<T: Decodable, Key: CodingKey>(_ type: T.Type, from value: JSONValue, key: Key) throws -> T {
        // Scalars first and without a decoder of their own: `[String]` and friends decode
        // their elements through here. `JSONDecoder` reaches the same checks through the
        // type's single-value container, at the same path.
        if T.self == String.self { return Self.same(try string(from: value, key: key), as: T.self) }
        if T.self == Int.self { return Self.same(try integer(Int.self, from: value, key: key), as: T.self) }
        if T.self == Double.self { return Self.same(try double(from: value, key: key), as: T.self) }
        if T.self == Bool.self { return Self.same(try bool(from: value, key: key), as: T.self) }
        if T.self == Date.self { return Self.same(try date(from: value, key: key), as: T.self) }
        if T.self == Data.self { return Self.same(try data(from: value, key: key), as: T.self) }
        if T.self == URL.self { return Self.same(try url(from: value, key: key), as: T.self) }
        if T.self == Decimal.self { return Self.same(try decimal(from: value, key: key), as: T.self) }
        if !options.usesDefaultKeys, let dictionary = T.self as? any StringKeyedDictionaryDecodable.Type {
            return Self.same(try dictionary.decodeKeepingKeys(from: value, in: self, key: key), as: T.self)
        }
        return try T(from: decoder(for: value, key: key))
    }

    /// `value` as `T`, which the caller has checked to be `Value`'s own type.
    ///
    /// Not `as? T`: in generic code that is not specialized (every `decode` a model calls), a
    /// cast to `T` looks up the metadata of `Optional<T>` in the runtime's cache on every call,
    /// which costs more than decoding a string. The types being the same, the bits are the value.
    @inline(__always)
    static func same<Value, T>(_ value: Value, as type: T.Type) -> T {
        assert(Value.self == T.self)
        return unsafeBitCast(value, to: T.self)
    }
}

extension JSONValueDecoderNode: Decoder {
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch value {
        case .object(let object):
            return KeyedDecodingContainer(JSONValueKeyedContainer<Key>(node: self, object: object))
        case .null:
            throw DecodingError.valueNotFound(
                [String: Any].self,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "Cannot get keyed decoding container -- found null value instead"))
        default:
            throw DecodingError.typeMismatch(
                [String: Any].self,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: JSONValueDecodingErrors.expected([String: Any].self, found: value)))
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .array(let elements):
            return JSONValueUnkeyedContainer(node: self, elements: elements)
        case .null:
            throw DecodingError.valueNotFound(
                [Any].self,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
        default:
            throw DecodingError.typeMismatch(
                [Any].self,
                DecodingError.Context(
                    codingPath: codingPath, debugDescription: JSONValueDecodingErrors.expected([Any].self, found: value)
                ))
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }
}

extension JSONValueDecoderNode: JSONValueSource {
    /// The value as `JSONValue.init(from:)` would rebuild it through this decoder's containers:
    /// the same tree with integral doubles read as integers. Not offered under a key strategy,
    /// which renames members.
    var jsonValueForDecoding: JSONValue? {
        // Not a conditional expression: its `nil` would be read as `JSONValue.null`.
        guard options.usesDefaultKeys else { return nil }
        return JSONNumberConversion.integralDoublesAsIntegers(value)
    }
}
