import Foundation

extension JSONValue {
    /// Converts a Foundation JSON object graph (`JSONSerialization` output, or literals of
    /// `[String: Any]`, `[Any]`, `String`, numbers, `Bool`, `NSNull`) into a `JSONValue`.
    ///
    /// Returns `nil` when the graph holds anything JSON cannot represent (a `Date`, a
    /// non-finite number, a custom class). Dictionary key order follows the dictionary's
    /// own iteration order, which is unspecified.
    public init?(foundationObject object: Any) {
        if let number = object as? NSNumber, !(object is String) {
            guard let value = Self.fromNumber(number, original: object) else { return nil }
            self = value
            return
        }
        switch object {
        case is NSNull:
            self = .null
        case let string as String:
            self = .string(string)
        case let array as [Any]:
            var values: [JSONValue] = []
            values.reserveCapacity(array.count)
            for element in array {
                guard let value = JSONValue(foundationObject: element) else { return nil }
                values.append(value)
            }
            self = .array(values)
        case let dictionary as [String: Any]:
            var result = JSONObject()
            for (key, element) in dictionary {
                guard let value = JSONValue(foundationObject: element) else { return nil }
                result[key] = value
            }
            self = .object(result)
        default:
            return nil
        }
    }

    /// The value as a Foundation object graph: `[String: Any]`, `[Any]`, `String`, `Int`,
    /// `Double`, `Bool` or `NSNull`, as `JSONSerialization` would produce.
    ///
    /// A `[String: Any]` compares keys as Swift Strings, so of two member names that differ
    /// only in Unicode normalisation it keeps one, with the later member's value, as
    /// `JSONSerialization` does; read the `JSONValue` itself to see both.
    public var foundationObject: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let bool): return bool
        case .int(let int): return int
        case .double(let double): return double
        case .string(let string): return string
        case .array(let array): return array.map(\.foundationObject)
        case .object(let object):
            var dictionary: [String: Any] = [:]
            for (key, value) in object.members { dictionary[key] = value.foundationObject }
            return dictionary
        }
    }

    /// Tells Booleans, integers and doubles apart. Swift values keep their own type;
    /// Foundation's boxes (what `JSONSerialization` returns) say it through `objCType`
    /// (`c` for a Boolean box, `d`/`f` for floating point).
    private static func fromNumber(_ number: NSNumber, original: Any) -> JSONValue? {
        switch original {
        case let bool as Bool where type(of: original) == Bool.self: return .bool(bool)
        case let int as Int where type(of: original) == Int.self: return .int(int)
        case let double as Double where type(of: original) == Double.self:
            return double.isFinite ? .double(double) : nil
        default: break
        }
        #if canImport(Darwin)
            if CFGetTypeID(number) == CFBooleanGetTypeID() { return .bool(number.boolValue) }
        #endif
        if let decimal = number as? NSDecimalNumber { return fromDecimal(decimal) }
        switch String(cString: number.objCType) {
        case "c", "B": return .bool(number.boolValue)
        case "d", "f":
            let double = number.doubleValue
            return double.isFinite ? .double(double) : nil
        case "Q", "L":
            // `JSONSerialization` boxes integers past Int64.max as unsigned; `intValue` would wrap
            // them negative. Past `Int`, the parser keeps the nearest Double, and so do we.
            let unsigned = number.uint64Value
            return unsigned > UInt64(Int.max) ? .double(Double(unsigned)) : .int(Int(unsigned))
        default:
            return .int(number.intValue)
        }
    }

    /// `JSONSerialization` answers with an `NSDecimalNumber` for integers beyond 64 bits, for
    /// negative integers of 19 digits, and for fractions with more digits than a Double holds.
    /// An integer that fits `Int` stays one, as ``init(parsing:options:)`` would read it; anything
    /// else becomes the nearest Double, read from the decimal's digits rather than through
    /// `doubleValue`, which may be off in the last place.
    private static func fromDecimal(_ decimal: NSDecimalNumber) -> JSONValue? {
        let digits = decimal.description
        if let int = Int(digits) { return .int(int) }
        guard let double = Double(digits), double.isFinite else { return nil }
        return .double(double)
    }
}

extension JSONObject {
    /// The object as `[String: Any]`, as `JSONSerialization` would produce: names that differ
    /// only in Unicode normalisation become one key (see ``JSONValue/foundationObject``).
    public var dictionary: [String: Any] {
        var dictionary: [String: Any] = [:]
        for (key, value) in members { dictionary[key] = value.foundationObject }
        return dictionary
    }
}
