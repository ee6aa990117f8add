import Foundation

/// A CURIE prefix declared in `_links.curies` (HAL draft, section 8.2).
///
/// `{"name": "ex", "href": "http://docs.example.org/rels/{rel}", "templated": true}` lets a
/// document write `ex:contacts` for `http://docs.example.org/rels/contacts`.
public struct CURIE: Sendable, Hashable {
    /// The prefix, e.g. `ex`.
    public let name: String
    /// The documentation template holding the `{rel}` placeholder.
    public let href: String

    /// Creates a CURIE binding.
    public init(name: String, href: String) {
        self.name = name
        self.href = href
    }

    /// The expanded URI of `reference` under this prefix: `{rel}` replaced by the reference.
    ///
    /// The HAL draft defines the placeholder as a plain token; the reference is inserted as
    /// written so the expansion is a relation identifier, not a percent-encoded URL.
    public func expand(_ reference: String) -> String {
        href.replacingOccurrences(of: "{rel}", with: reference)
    }
}

/// The CURIE prefixes visible inside one resource: its own, then those of the resources
/// that embed it. An inner binding of a prefix hides an outer one.
struct CURIEScope: Sendable, Hashable {
    /// Prefix names are compared as the relations that use them are: by code units.
    private(set) var bindings: [CodeUnitKey: CURIE] = [:]

    static let empty = CURIEScope()

    /// This scope with `curies` declared on top of it.
    func adding(_ curies: [CURIE]) -> CURIEScope {
        guard !curies.isEmpty else { return self }
        var scope = self
        for curie in curies { scope.bindings[CodeUnitKey(curie.name)] = curie }
        return scope
    }

    /// The expanded URI of a relation: a bound CURIE expands through its prefix, an absolute
    /// URI stands for itself, anything else (a registered name, an unbound prefix) has none.
    func expandedURI(of rel: String) -> String? {
        if let colon = rel.firstIndex(of: ":") {
            let prefix = String(rel[..<colon])
            let reference = rel[rel.index(after: colon)...]
            // `http://...` is a URI even when a document (oddly) binds a prefix named `http`.
            if !reference.hasPrefix("//"), let curie = bindings[CodeUnitKey(prefix)] {
                return curie.expand(String(reference))
            }
            if Self.isAbsoluteURI(rel) { return rel }
        }
        return nil
    }

    /// The binding a compact relation uses, if its prefix is bound.
    func curie(for rel: String) -> CURIE? {
        guard let colon = rel.firstIndex(of: ":") else { return nil }
        let reference = rel[rel.index(after: colon)...]
        guard !reference.hasPrefix("//") else { return nil }
        return bindings[CodeUnitKey(String(rel[..<colon]))]
    }

    private static func isAbsoluteURI(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
        let scheme = text[..<colon]
        guard let first = scheme.unicodeScalars.first, CharacterSet.letters.contains(first) else { return false }
        return scheme.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "+-.".unicodeScalars.contains($0)
        }
    }

    /// Finds the key in `keys` that names `rel`: the same spelling (code units) first, then
    /// the same expanded URI (another prefix bound to the same namespace, or the full URI form).
    func match<Keys: Collection<String>>(_ rel: String, in keys: Keys) -> Keys.Index? {
        if let exact = keys.firstIndex(where: { $0.hasSameCodeUnits(as: rel) }) { return exact }
        guard let wanted = expandedURI(of: rel) else { return nil }
        return keys.firstIndex { expandedURI(of: $0)?.hasSameCodeUnits(as: wanted) ?? false }
    }

    /// Whether two relations name the same thing: the same spelling, or the same expanded URI.
    func sameRelation(_ lhs: String, _ rhs: String) -> Bool {
        if lhs.hasSameCodeUnits(as: rhs) { return true }
        guard let wanted = expandedURI(of: lhs), let other = expandedURI(of: rhs) else { return false }
        return wanted.hasSameCodeUnits(as: other)
    }
}
