import Foundation

/// An object's members under the names a key strategy gives them, for the keyed container.
///
/// Built once per container, as `JSONDecoder` builds it: in document order, the first member
/// keeping a name that two members convert to. Converted names are compared by code units, as
/// the tree compares member names: two that differ only in Unicode normalisation stay two.
final class RenamedMembers {
    /// The converted names, each once, in document order.
    private(set) var names: [String] = []
    private var values: [CodeUnitKey: JSONValue] = [:]

    init(_ object: JSONObject, keys: JSONValueDecodingOptions.Keys, path: @autoclosure () -> [any CodingKey]) {
        values.reserveCapacity(object.count)
        names.reserveCapacity(object.count)
        switch keys {
        case .useDefaultKeys:
            for (name, value) in object.members { add(name, value) }
        case .convertFromSnakeCase:
            for (name, value) in object.members { add(Self.camelCase(fromSnakeCase: name), value) }
        case .custom(let convert):
            var memberPath = path()
            for (name, value) in object.members {
                memberPath.append(AnyCodingKey(name))
                add(convert(memberPath).stringValue, value)
                memberPath.removeLast()
            }
        }
    }

    subscript(name: String) -> JSONValue? { values[CodeUnitKey(name)] }

    private func add(_ name: String, _ value: JSONValue) {
        guard values[CodeUnitKey(name)] == nil else { return }
        values[CodeUnitKey(name)] = value
        names.append(name)
    }

    /// `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase`: `first_name` → `firstName`.
    ///
    /// Underscores that lead or trail are kept (`_links` stays `_links`), the words between are
    /// joined with the first lowercased and the others capitalized, and a name with one word is
    /// kept as written.
    static func camelCase(fromSnakeCase name: String) -> String {
        // Most names have no underscore, and those are kept as written.
        guard name.utf8.contains(UInt8(ascii: "_")) else { return name }
        guard let first = name.firstIndex(where: { $0 != "_" }) else { return name }
        var last = name.index(before: name.endIndex)
        while last > first, name[last] == "_" { name.formIndex(before: &last) }
        let words = name[first...last].split(separator: "_")
        guard words.count > 1 else { return name }
        var converted = String(name[..<first])
        converted += words[0].lowercased()
        for word in words.dropFirst() { converted += word.capitalized }
        converted += name[name.index(after: last)...]
        return converted
    }
}
