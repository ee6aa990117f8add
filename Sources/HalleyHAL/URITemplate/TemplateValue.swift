/// A value bound to a URI Template variable.
///
/// RFC 6570 section 2.3 allows three kinds of values: strings, lists of
/// strings and associative arrays of (name, value) string pairs. A variable
/// can also be undefined, in which case expansion skips it. Values are
/// usually written as literals:
///
/// ```swift
/// let variables: [String: TemplateValue] = [
///     "id": 42,                              // .string("42")
///     "tags": ["red", "green"],              // .list
///     "filter": ["size": "m", "color": "b"], // .associativeArray, order kept
///     "page": nil,                           // .undefined, skipped
/// ]
/// ```
public enum TemplateValue: Sendable, Hashable {
    /// One (name, value) pair of an associative array.
    ///
    /// Pairs are kept in an array rather than a `Dictionary` because the
    /// expansion of an associative array lists its pairs, and a URI must not
    /// depend on hash ordering (RFC 6570 section 2.4.2).
    public struct KeyValue: Sendable, Hashable {
        /// The pair's name, expanded before the value.
        public var key: String

        /// The pair's value.
        public var value: String

        /// Creates a pair.
        ///
        /// - Parameters:
        ///   - key: The pair's name.
        ///   - value: The pair's value.
        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    /// A string value; an empty string is defined and still expands
    /// (RFC 6570 section 2.3), e.g. `{?q}` with `""` gives `?q=`.
    case string(String)

    /// An ordered list of strings; an empty list counts as undefined
    /// (RFC 6570 section 2.3).
    case list([String])

    /// An ordered associative array; an empty one counts as undefined
    /// (RFC 6570 section 2.3). Expansion lists the pairs in this order.
    case associativeArray([KeyValue])

    /// No value: expansion skips the variable exactly as if it were missing
    /// from the variables dictionary (RFC 6570 section 2.3).
    case undefined

    /// Whether RFC 6570 section 2.3 treats the value as undefined, that is
    /// `.undefined`, an empty list or an empty associative array.
    ///
    /// An empty string is defined, so `.string("")` returns `false`.
    public var isUndefined: Bool {
        switch self {
        case .string:
            return false
        case .list(let items):
            return items.isEmpty
        case .associativeArray(let pairs):
            return pairs.isEmpty
        case .undefined:
            return true
        }
    }
}

extension TemplateValue: ExpressibleByStringLiteral {
    /// Creates a `.string` value from a string literal.
    ///
    /// - Parameters:
    ///   - value: The literal text.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension TemplateValue: ExpressibleByStringInterpolation {
    /// Creates a `.string` value from an interpolated string literal such as
    /// `"page-\(number)"`.
    ///
    /// - Parameters:
    ///   - stringInterpolation: The interpolation built by the compiler.
    public init(stringInterpolation: DefaultStringInterpolation) {
        self = .string(String(stringInterpolation: stringInterpolation))
    }
}

extension TemplateValue: ExpressibleByIntegerLiteral {
    /// Creates a `.string` value holding the literal in decimal, e.g. `6` -> `"6"`.
    ///
    /// - Parameters:
    ///   - value: The integer literal.
    public init(integerLiteral value: Int) {
        self = .string(String(value))
    }
}

extension TemplateValue: ExpressibleByFloatLiteral {
    /// Creates a `.string` value holding the shortest decimal text that
    /// reads back as the same `Double`, e.g. `37.76` -> `"37.76"` and
    /// `1.0` -> `"1.0"`.
    ///
    /// Swift's `Double.description` already guarantees the shortest
    /// round-tripping form, so no formatter (and no locale) is involved.
    ///
    /// - Parameters:
    ///   - value: The floating-point literal.
    public init(floatLiteral value: Double) {
        self = .string(value.description)
    }
}

extension TemplateValue: ExpressibleByBooleanLiteral {
    /// Creates a `.string` value of `"true"` or `"false"`.
    ///
    /// - Parameters:
    ///   - value: The Boolean literal.
    public init(booleanLiteral value: Bool) {
        self = .string(value ? "true" : "false")
    }
}

extension TemplateValue: ExpressibleByArrayLiteral {
    /// Creates a `.list` value from an array literal of strings.
    ///
    /// - Parameters:
    ///   - elements: The list members, in order.
    public init(arrayLiteral elements: String...) {
        self = .list(elements)
    }
}

extension TemplateValue: ExpressibleByDictionaryLiteral {
    /// Creates an `.associativeArray` value that keeps the pairs in the
    /// order they are written in the literal.
    ///
    /// Unlike a `Dictionary`, the resulting value is deterministic and may
    /// repeat a key, which some query-string conventions rely on.
    ///
    /// - Parameters:
    ///   - elements: The (key, value) pairs, in written order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self = .associativeArray(elements.map { KeyValue(key: $0.0, value: $0.1) })
    }
}

extension TemplateValue: ExpressibleByNilLiteral {
    /// Creates the `.undefined` value, so `["page": nil]` skips `page`.
    ///
    /// - Parameters:
    ///   - nilLiteral: The `nil` literal.
    public init(nilLiteral: ()) {
        self = .undefined
    }
}

extension Dictionary where Key == String, Value == TemplateValue {
    /// These variables with `stronger` laid over them, name by name: the one rule by which
    /// every variable layer (provider, manager, call, request, include, hop) overrides the
    /// ones below it.
    package func overlaid(with stronger: [String: TemplateValue]) -> [String: TemplateValue] {
        guard !stronger.isEmpty else { return self }
        return merging(stronger) { _, stronger in stronger }
    }
}
