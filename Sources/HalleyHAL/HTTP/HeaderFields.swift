/// HTTP header fields: ordered, names compared without regard to case.
///
/// Named so that an app importing Alamofire or SwiftNIO (`HTTPHeaders`) or swift-http-types
/// (`HTTPFields`) beside Halley can write it unqualified.
///
/// ```swift
/// var headers: HeaderFields = ["Accept": "application/hal+json"]
/// headers["authorization"] = "Bearer abc"
/// headers["Authorization"]   // "Bearer abc"
/// ```
public struct HeaderFields: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
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

    /// Fields from name/value pairs, in order; a later pair replaces an earlier one of the
    /// same name (any case) in its place.
    ///
    /// Linear in the number of pairs: a response with tens of thousands of header fields
    /// costs a dictionary lookup per field, not a scan of the fields before it.
    public init(_ pairs: [(String, String)]) {
        // Every `[:]` (a request's own headers, most often): nothing to reserve either, which
        // for an empty array still goes through its copy-and-grow path.
        if pairs.isEmpty { return }
        // Most literals hold a field or two: no table for those.
        if pairs.count <= 4 {
            fields.reserveCapacity(pairs.count)
            for (name, value) in pairs {
                if let index = fields.firstIndex(where: { sameName($0.name, name) }) {
                    fields[index] = Field(name: name, value: value)
                } else {
                    fields.append(Field(name: name, value: value))
                }
            }
            return
        }
        fields.reserveCapacity(pairs.count)
        var positions: [String: Int] = [:]
        positions.reserveCapacity(pairs.count)
        for (name, value) in pairs {
            Self.set(Field(name: name, value: value), in: &fields, positions: &positions)
        }
    }

    /// Fields already free of repeated names (any case): what a requester that combined
    /// repeated response fields itself hands over, without a second pass.
    package init(distinctFields: [Field]) {
        fields = distinctFields
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
            // Every request starts empty and gets its `Accept` here: no scan, no generic insert.
            if fields.isEmpty {
                if let newValue { fields = [Field(name: name, value: newValue)] }
                return
            }
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
    public mutating func merge(_ other: HeaderFields) {
        guard !other.isEmpty else { return }
        var positions: [String: Int] = [:]
        positions.reserveCapacity(fields.count + other.fields.count)
        for (index, field) in fields.enumerated() { positions[Self.key(field.name)] = index }
        for field in other.fields { Self.set(field, in: &fields, positions: &positions) }
    }

    /// Replaces the field with `field`'s name (any case) in its place, or appends it.
    /// `positions` maps each ``key(_:)`` in `fields` to its index; `fields` never holds two
    /// fields of one name, which every mutation keeps true.
    private static func set(_ field: Field, in fields: inout [Field], positions: inout [String: Int]) {
        let key = key(field.name)
        if let index = positions[key] {
            fields[index] = field
        } else {
            positions[key] = fields.count
            fields.append(field)
        }
    }

    /// The name with ASCII letters lowercased: equal for names ``sameName(_:_:)`` matches.
    private static func key(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return name }
        return String(decoding: name.utf8.map(lowerASCII), as: UTF8.self)
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }
}

/// Header names are ASCII tokens compared without regard to case (RFC 9110, 5.1).
private func sameName(_ lhs: String, _ rhs: String) -> Bool {
    guard lhs.utf8.count == rhs.utf8.count else { return false }
    // perf: over the bytes themselves when both strings have them contiguous (native strings
    // do), not `zip` of the two views; BENCHMARKS.md, "Why the hot paths look as they do".
    let compared = lhs.utf8.withContiguousStorageIfAvailable { left in
        rhs.utf8.withContiguousStorageIfAvailable { right in
            for index in left.indices where lowerASCII(left[index]) != lowerASCII(right[index]) { return false }
            return true
        }
    }
    if let compared = compared ?? nil { return compared }
    return zip(lhs.utf8, rhs.utf8).allSatisfy { lowerASCII($0) == lowerASCII($1) }
}

private func lowerASCII(_ byte: UInt8) -> UInt8 {
    (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte + 32 : byte
}

/// The former name of ``HeaderFields``, which Alamofire and SwiftNIO also declare: in an app
/// that imports one of them, `HTTPHeaders` is ambiguous; `HeaderFields` never is.
@available(*, deprecated, renamed: "HeaderFields")
public typealias HTTPHeaders = HeaderFields
