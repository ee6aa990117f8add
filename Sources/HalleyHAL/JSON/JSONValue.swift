/// A JSON value, as Halley reads, merges and writes it.
///
/// `JSONValue` is what the library uses instead of `[String: Any]`: it is `Sendable`,
/// `Hashable` and `Codable`, keeps integers apart from floating-point numbers, and keeps
/// object keys in the order the server wrote them (see ``JSONObject``).
///
/// ```swift
/// let value = try JSONValue(parsing: Data(#"{"id": 1, "name": "Ada"}"#.utf8))
/// value["name"]?.stringValue   // "Ada"
/// value["id"]?.intValue        // 1
/// ```
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in `Int`.
    case int(Int)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object whose keys keep their order.
    case object(JSONObject)
}

extension JSONValue {
    /// The member named `key` when this value is an object, otherwise `nil`.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element at `index` when this value is an array and the index is in range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let array) = self, array.indices.contains(index) else { return nil }
        return array[index]
    }

    /// The string when this value is a string.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The integer when this value is an integer, or a floating-point number with no fraction.
    public var intValue: Int? {
        switch self {
        case .int(let int): return int
        case .double(let double): return Int(exactly: double)
        default: return nil
        }
    }

    /// The number as a `Double` when this value is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let int): return Double(int)
        case .double(let double): return double
        default: return nil
        }
    }

    /// The Boolean when this value is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    /// The elements when this value is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    /// The object when this value is an object.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// Whether this value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name of the value's kind, used in error messages ("object", "string", ...).
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// ``kindName`` with its article, as messages put it ("is an array", "holds a string", "is
    /// null"): the one place that says it, so no message reads "a array".
    package var kindWithArticle: String {
        switch self {
        case .null: return "null"
        case .array, .object: return "an " + kindName
        case .bool, .int, .double, .string: return "a " + kindName
        }
    }

    /// The value as a message quotes it: compact JSON, cut at 60 characters.
    package var quotedInMessage: String {
        let text = description
        return text.count > 60 ? text.prefix(57) + "…" : text
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// Creates `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// Creates a Boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// Creates an integer value.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// Creates a floating-point value.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// Creates a string value.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// Creates an array value.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Creates an object value whose keys keep the written order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text.
    public var description: String { String(decoding: serialized(), as: UTF8.self) }
}
