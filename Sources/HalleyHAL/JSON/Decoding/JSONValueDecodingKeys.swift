// The coding keys the tree decoder makes itself.

/// The key argument for a value at a decoder's own position rather than below it.
///
/// A type of its own instead of `nil`: a `Key?` in generic code that is not specialized costs a
/// metadata lookup for `Optional<Key>` on every call, and these calls are per value.
struct NoKey: CodingKey {
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }

    var stringValue: String { "" }
    var intValue: Int? { nil }
}

/// The key of an array element in a coding path: "Index 3", with the index as its `intValue`.
struct IndexCodingKey: CodingKey {
    let index: Int

    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.index = intValue }

    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
}
