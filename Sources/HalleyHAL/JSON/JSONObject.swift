/// A JSON object that keeps its keys in insertion order.
///
/// Servers write `_links` before attributes and clients print documents back to people, so
/// order matters for output. Equality ignores order (two objects with the same members are
/// equal), which is what JSON means.
///
/// Keys are compared by their code units (RFC 8259 §8.3), not with String's `==`: `"é"`
/// written precomposed (U+00E9) and decomposed (`e` U+0301) are two members, as the server
/// wrote them, and a lookup finds the one spelled with the same bytes.
///
/// Lookups are linear for small objects, which is what HAL documents are made of, and go
/// through a hash index once an object grows past a few dozen keys, so hostile documents
/// with very many keys stay linear to parse.
public struct JSONObject: Sendable {
    /// One member. Keys and values share one array, so a small object is one allocation:
    /// the parser makes one object per link, and a document can hold hundreds of thousands.
    private struct Member: Sendable {
        let key: String
        var value: JSONValue
    }

    private var storedMembers: [Member] = []
    private var index: [CodeUnitKey: Int]? = nil

    /// Objects with more keys than this get a hash index.
    private static let indexThreshold = 24

    /// Creates an empty object.
    public init() {}

    /// Creates an object from key/value pairs; a repeated key (the same code units) keeps its
    /// first position and its last value, as most JSON parsers do.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, JSONValue) {
        for (key, value) in pairs { self[key] = value }
    }

    /// The keys, in order.
    public var keys: [String] { storedMembers.map(\.key) }

    /// The values, in key order.
    public var values: [JSONValue] { storedMembers.map(\.value) }

    /// The number of members.
    public var count: Int { storedMembers.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { storedMembers.isEmpty }

    /// The members in order.
    public var members: some Sequence<(key: String, value: JSONValue)> {
        storedMembers.lazy.map { (key: $0.key, value: $0.value) }
    }

    /// Whether a member named `key` (with the same code units) exists.
    public func contains(_ key: String) -> Bool { position(of: key) != nil }

    /// Reads, replaces, appends or (with `nil`) removes the member named `key` (with the same
    /// code units).
    ///
    /// Replacing keeps the member's position; appending puts it last.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return storedMembers[position].value
        }
        set {
            if let position = position(of: key) {
                if let newValue {
                    storedMembers[position].value = newValue
                } else {
                    remove(at: position)
                }
            } else if let newValue {
                appendNew(key, newValue)
            }
        }
    }

    /// Removes the member named `key` (with the same code units) and returns its value.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let position = position(of: key) else { return nil }
        let value = storedMembers[position].value
        remove(at: position)
        return value
    }

    @inline(__always)
    private func position(of key: String) -> Int? {
        if let index { return index[CodeUnitKey(key)] }
        return storedMembers.firstIndex { $0.key.hasSameCodeUnits(as: key) }
    }

    /// The position of `key`, scanning from `hint` to the end and then from the start.
    ///
    /// Decoders ask for members mostly in the order the server wrote them, so a scan that starts
    /// just after the previous hit finds most keys at its first comparison.
    func position(of key: String, startingAt hint: Int) -> Int? {
        if let index { return index[CodeUnitKey(key)] }
        let count = storedMembers.count
        let start = hint < count ? hint : 0
        for position in start..<count where storedMembers[position].key.hasSameCodeUnits(as: key) { return position }
        for position in 0..<start where storedMembers[position].key.hasSameCodeUnits(as: key) { return position }
        return nil
    }

    /// The value at a position from ``keys`` or `position(of:startingAt:)`.
    func value(atPosition position: Int) -> JSONValue { storedMembers[position].value }

    /// The key at a position from `0..<count`.
    func key(atPosition position: Int) -> String { storedMembers[position].key }

    private mutating func remove(at position: Int) {
        storedMembers.remove(at: position)
        if index != nil { rebuildIndex() }
    }

    private mutating func rebuildIndex() {
        var newIndex = [CodeUnitKey: Int](minimumCapacity: storedMembers.count)
        for (position, member) in storedMembers.enumerated() { newIndex[CodeUnitKey(member.key)] = position }
        index = newIndex
    }

    /// An object of one member, made as an array of exactly one (the parser, for an object
    /// that ends after its first member: a link object). Appending to an empty array took the
    /// array's general grow-and-copy path.
    init(onlyMember key: consuming String, _ value: consuming JSONValue) {
        storedMembers = [Member(key: key, value: value)]
    }

    /// Makes room for `capacity` members in one allocation (the parser, when a second member
    /// follows the first).
    mutating func reserveCapacity(_ capacity: Int) {
        storedMembers.reserveCapacity(capacity)
    }

    /// Appends a member known not to be present yet; used by the parser after its own
    /// duplicate check, to avoid looking the key up twice.
    ///
    /// perf: inlined, one retain and release fewer per member;
    /// BENCHMARKS.md, "Why the hot paths look as they do".
    @inline(__always)
    mutating func appendNew(_ key: consuming String, _ value: consuming JSONValue) {
        // Objects of one member (link objects) stay exact; a second member makes room for
        // eight at once, where doubling from one would reallocate three times on the way.
        if storedMembers.count == 1 { storedMembers.reserveCapacity(8) }
        // The index first, so that the member takes the key as its last use (moved, not copied).
        if index != nil { index?[CodeUnitKey(copy key)] = storedMembers.count }
        storedMembers.append(Member(key: key, value: value))
        if index == nil, storedMembers.count > Self.indexThreshold { rebuildIndex() }
    }

    /// Replaces the value at a position obtained from ``keys``; used by the merger.
    mutating func setValue(_ value: JSONValue, atPosition position: Int) {
        storedMembers[position].value = value
    }
}

extension JSONObject: Equatable {
    /// Objects are equal when they have the same members, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs.members where rhs[key] != value { return false }
        return true
    }
}

extension JSONObject: Hashable {
    /// Hashes the members independently of their order, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for (key, value) in members {
            var memberHasher = Hasher()
            memberHasher.combine(key)
            memberHasher.combine(value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Creates an object whose keys keep the written order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}

extension JSONObject: CustomStringConvertible {
    /// The object as compact JSON text.
    public var description: String { JSONValue.object(self).description }
}
