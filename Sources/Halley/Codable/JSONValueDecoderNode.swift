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
    var lookupHint = 0

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

    /// A decoder for `value` under `key`, or this node itself when `key` is `nil` (the value
    /// is this node's own).
    func decoder(for value: JSONValue, key: (some CodingKey)?) -> JSONValueDecoderNode {
        guard let key else { return self }
        return child(value, key: key)
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

    /// The coding path of this position, then `key` when there is one.
    func codingPath(appending key: (some CodingKey)?) -> [any CodingKey] {
        var path = codingPath
        if let key { path.append(key) }
        return path
    }

    /// Decodes `value` as `T` the way `JSONDecoder` does: the types it treats specially
    /// (`Date`, `Data`, `URL`, `Decimal`, and `[String: _]` under a key strategy) by its
    /// strategies, everything else through `T.init(from:)`.
    ///
    /// - Parameters:
    ///   - value: The value, at this position (`key` is `nil`) or under `key` below it.
    ///   - key: The value's key or index below this position.
    func decode<T: Decodable, Key: CodingKey>(_ type: T.Type, from value: JSONValue, key: Key?) throws -> T {
        // Scalars first and without a decoder of their own: `[String]` and friends decode
        // their elements through here. `JSONDecoder` reaches the same checks through the
        // type's single-value container, at the same path.
        if T.self == String.self, let string = try string(from: value, key: key) as? T { return string }
        if T.self == Int.self, let int = try integer(Int.self, from: value, key: key) as? T { return int }
        if T.self == Double.self, let double = try double(from: value, key: key) as? T { return double }
        if T.self == Bool.self, let bool = try bool(from: value, key: key) as? T { return bool }
        if T.self == Date.self, let date = try date(from: value, key: key) as? T { return date }
        if T.self == Data.self, let data = try data(from: value, key: key) as? T { return data }
        if T.self == URL.self, let url = try url(from: value, key: key) as? T { return url }
        if T.self == Decimal.self, let decimal = try decimal(from: value, key: key) as? T { return decimal }
        if !options.usesDefaultKeys, let dictionary = T.self as? any StringKeyedDictionaryDecodable.Type,
            let decoded = try dictionary.decodeKeepingKeys(from: value, in: self, key: key) as? T
        {
            return decoded
        }
        return try T(from: decoder(for: value, key: key))
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
