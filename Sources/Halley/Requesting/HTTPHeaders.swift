/// HTTP header fields: ordered, names compared without regard to case.
///
/// ```swift
/// var headers: HTTPHeaders = ["Accept": "application/hal+json"]
/// headers["authorization"] = "Bearer abc"
/// headers["Authorization"]   // "Bearer abc"
/// ```
public struct HTTPHeaders: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The name as written.
        public let name: String
        /// The value.
        public let value: String
        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field] = []

    /// No fields.
    public init() {}

    /// Fields from name/value pairs, in order.
    public init(_ pairs: [(String, String)]) {
        for (name, value) in pairs { self[name] = value }
    }

    /// Fields from a literal, in written order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The value of the first field named `name` (any case); setting replaces every field of
    /// that name, `nil` removes them.
    public subscript(name: String) -> String? {
        get { fields.first { sameName($0.name, name) }?.value }
        set {
            let position = fields.firstIndex { sameName($0.name, name) }
            fields.removeAll { sameName($0.name, name) }
            if let newValue {
                fields.insert(Field(name: name, value: newValue), at: Swift.min(position ?? fields.count, fields.count))
            }
        }
    }

    /// Whether a field named `name` (any case) is present.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Adds or replaces every field of `other`, keeping this order for names already present.
    public mutating func merge(_ other: HTTPHeaders) {
        for field in other.fields { self[field.name] = field.value }
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }
}

/// Header names are ASCII tokens compared without regard to case (RFC 9110, 5.1).
private func sameName(_ lhs: String, _ rhs: String) -> Bool {
    lhs.utf8.count == rhs.utf8.count
        && zip(lhs.utf8, rhs.utf8).allSatisfy { lowerASCII($0) == lowerASCII($1) }
}

private func lowerASCII(_ byte: UInt8) -> UInt8 {
    (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte + 32 : byte
}
