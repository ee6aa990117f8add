/// Lets `JSONValue` sit in any `Codable` model, for attributes whose shape is open.
extension JSONValue: Codable {
    /// Decodes whatever JSON is at this position.
    ///
    /// Key order of objects follows the decoder's `allKeys`, which Foundation's
    /// `JSONDecoder` does not promise to keep; parse with ``init(parsing:options:)-(Data,_)``
    /// when order matters.
    public init(from decoder: any Decoder) throws {
        if let source = decoder as? any JSONValueSource, let value = source.jsonValueForDecoding {
            self = value
            return
        }
        // Leaves first, strings before all: each failed guess makes the decoder build an
        // error with its coding path, which costs more than the value itself.
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() {
                self = .null
                return
            }
            if let string = try? single.decode(String.self) {
                self = .string(string)
                return
            }
            if let bool = try? single.decode(Bool.self) {
                self = .bool(bool)
                return
            }
            if let int = try? single.decode(Int.self) {
                self = .int(int)
                return
            }
            if let double = try? single.decode(Double.self) {
                self = .double(double)
                return
            }
        }
        if let keyed = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var object = JSONObject()
            for key in keyed.allKeys {
                object[key.stringValue] = try keyed.decode(JSONValue.self, forKey: key)
            }
            self = .object(object)
            return
        }
        var unkeyed = try decoder.unkeyedContainer()
        var array: [JSONValue] = []
        if let count = unkeyed.count { array.reserveCapacity(count) }
        while !unkeyed.isAtEnd { array.append(try unkeyed.decode(JSONValue.self)) }
        self = .array(array)
    }

    /// Encodes the value, keeping object key order.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let bool):
            var single = encoder.singleValueContainer()
            try single.encode(bool)
        case .int(let int):
            var single = encoder.singleValueContainer()
            try single.encode(int)
        case .double(let double):
            var single = encoder.singleValueContainer()
            try single.encode(double)
        case .string(let string):
            var single = encoder.singleValueContainer()
            try single.encode(string)
        case .array(let array):
            var unkeyed = encoder.unkeyedContainer()
            for element in array { try unkeyed.encode(element) }
        case .object(let object):
            var keyed = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in object.members { try keyed.encode(value, forKey: AnyCodingKey(key)) }
        }
    }
}

extension JSONObject: Codable {
    /// Decodes a JSON object.
    public init(from decoder: any Decoder) throws {
        guard case .object(let object) = try JSONValue(from: decoder) else {
            throw DecodingError.typeMismatch(
                JSONObject.self,
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "expected a JSON object"))
        }
        self = object
    }

    /// Encodes the object, keeping key order.
    public func encode(to encoder: any Encoder) throws {
        try JSONValue.object(self).encode(to: encoder)
    }
}

/// A decoder that reads a `JSONValue` tree and can hand over the value at its position as
/// ``JSONValue/init(from:)`` would rebuild it, sparing that initializer its guesses.
protocol JSONValueSource {
    /// The value, or `nil` when it must be rebuilt through the decoder's containers.
    var jsonValueForDecoding: JSONValue? { get }
}

/// A coding key for arbitrary member names.
///
/// An enum rather than a `String` and an `Int?` side by side: that takes 25 bytes, one more than
/// an `any CodingKey` holds inline, so every such key put into a coding path or an `allKeys`
/// array would be boxed on the heap.
enum AnyCodingKey: CodingKey, Hashable, Sendable {
    case name(String)
    case number(Int)

    init(_ string: String) { self = .name(string) }

    init?(stringValue: String) { self = .name(stringValue) }

    init?(intValue: Int) { self = .number(intValue) }

    var stringValue: String {
        switch self {
        case .name(let name): return name
        case .number(let number): return String(number)
        }
    }

    var intValue: Int? {
        switch self {
        case .name: return nil
        case .number(let number): return number
        }
    }
}
