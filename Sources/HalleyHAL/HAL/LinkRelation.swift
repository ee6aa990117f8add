/// The name of a link relation: a registered name (`next`), a CURIE (`ex:contacts`) or a
/// URI (`http://docs.example.org/rels/contacts`).
///
/// An open, string-backed type like `HTTPRequest.Method`: any string is a relation, the
/// common ones are named.
///
/// Relations are `_links` member names, so they are equal only when their code units are
/// (RFC 8259 §8.3): a name written precomposed (`é`) and one written decomposed (`e` and
/// U+0301) are two relations, as they are two members of the document.
///
/// ```swift
/// let next = resource.links.link(for: .next)
/// let contacts = resource.links.links(for: "ex:contacts")
/// ```
public struct LinkRelation: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral,
    CustomStringConvertible, Comparable
{
    /// The relation as written.
    public let rawValue: String

    /// Creates a relation from its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a relation from its name.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates a relation from a literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The relation as written.
    public var description: String { rawValue }

    /// Whether the two relations are spelled with the same code units.
    public static func == (lhs: LinkRelation, rhs: LinkRelation) -> Bool {
        lhs.rawValue.hasSameCodeUnits(as: rhs.rawValue)
    }

    /// Hashes the relation's code units, consistent with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        CodeUnitKey(rawValue).hash(into: &hasher)
    }

    /// Orders relations by name: by their UTF-8 bytes, which is String's order for names in
    /// Normalization Form C and tells apart the names ``==(_:_:)`` does.
    public static func < (lhs: LinkRelation, rhs: LinkRelation) -> Bool {
        lhs.rawValue.precedesInCodeUnits(rhs.rawValue)
    }

    /// The resource itself (`self`, RFC 8288). Spelled `current` because `self` is taken in Swift.
    public static let current = LinkRelation("self")
    /// The next page of a collection.
    public static let next = LinkRelation("next")
    /// The previous page of a collection.
    public static let prev = LinkRelation("prev")
    /// The first page of a collection.
    public static let first = LinkRelation("first")
    /// The last page of a collection.
    public static let last = LinkRelation("last")
    /// A member of a collection.
    public static let item = LinkRelation("item")
    /// The collection a resource belongs to.
    public static let collection = LinkRelation("collection")
    /// The enclosing resource.
    public static let up = LinkRelation("up")
    /// A search resource, often templated.
    public static let search = LinkRelation("search")
    /// HAL's reserved relation declaring CURIE prefixes.
    public static let curies = LinkRelation("curies")
}
