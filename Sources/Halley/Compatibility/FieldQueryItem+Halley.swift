import Foundation

extension URLQueryItem {
    /// The original Halley's `FieldQueryItem(key:value:)`.
    ///
    /// ```swift
    /// ToOne(.website, queryItems: [FieldQueryItem(key: "fields", value: "url")])
    /// ```
    ///
    /// Equality stays `URLQueryItem`'s (name and value): Halley compared keys only, which
    /// made `fields=id` equal `fields=url` and broke `Hashable`'s contract; where Halley relied
    /// on it, to combine items of one name, values are joined with commas instead.
    public init(key: String, value: String) {
        self.init(name: key, value: value)
    }

    /// The original Halley's `FieldQueryItem(key:values:)`: the values joined with commas.
    public init(key: String, values: [String]) {
        self.init(name: key, value: values.joined(separator: ","))
    }

    /// The original Halley's `FieldQueryItem.key`: the name.
    public var key: String { name }
}
