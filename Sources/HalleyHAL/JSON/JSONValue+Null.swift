extension JSONValue {
    /// The value, or `nil` for `null`: in forms, `null` is no value. (A closure returning
    /// `nil` for a `JSONValue` would make `.null`, since `JSONValue` is `ExpressibleByNilLiteral`.)
    package var unlessNull: JSONValue? {
        if case .null = self { return nil }
        return self
    }
}
