import Foundation

/// A per-include query item, appended to the URL of the relationship it is attached to.
/// (The original Halley's name; it is a `URLQueryItem`.)
public typealias FieldQueryItem = URLQueryItem

/// One or more include paths, relative to the model whose include list holds them: what
/// ``ToOne``, ``ToMany`` and ``Nested`` produce and ``IncludesBuilder`` collects.
public struct IncludeField: Sendable, Hashable {
    /// One path with its variables and query items.
    struct Entry: Sendable, Hashable {
        var segments: [IncludePath.Segment]
        var variables: [String: TemplateValue]
        var queryItems: [URLQueryItem]
    }

    let entries: [Entry]

    init(entries: [Entry]) {
        self.entries = entries
    }

    /// A field from a string include path such as `"[contacts].website"`.
    ///
    /// - Throws: ``IncludePathError`` for a malformed path.
    public init(path: String, variables: [String: TemplateValue] = [:], queryItems: [FieldQueryItem] = [])
        throws(IncludePathError)
    {
        entries = [Entry(segments: try IncludePath(path).segments, variables: variables, queryItems: queryItems)]
    }

    /// The include paths this field stands for, in the string grammar.
    public var paths: [String] {
        entries.map { IncludePath(segments: $0.segments).description }
    }

    /// This field's paths placed below `segment`, with `segment` itself first.
    func nested(under segment: IncludePath.Segment) -> [Entry] {
        entries.map { Entry(segments: [segment] + $0.segments, variables: $0.variables, queryItems: $0.queryItems) }
    }
}

/// Includes a to-one relationship: a link object (or an array of one link), or an embedded
/// resource.
///
/// ```swift
/// ToOne(.website)
/// ToOne(.avatar, variables: ["size": "small"])
/// ```
public struct ToOne<Key: IncludeKey>: Sendable {
    /// The field.
    public let field: IncludeField

    /// Includes the relation named by `key`.
    ///
    /// - Parameters:
    ///   - key: The relation, usually a model coding key.
    ///   - linkName: Picks the link whose HAL `name` matches when the relation has several.
    ///   - queryItems: Appended to the relationship's URL.
    ///   - variables: Expand the relationship's templated link; they win over all others.
    public init(
        _ key: Key, linkName: String? = nil, queryItems: [FieldQueryItem] = [],
        variables: [String: TemplateValue] = [:]
    ) {
        let segment = IncludePath.Segment(rel: LinkRelation(key.includeKeyName), isToMany: false, linkName: linkName)
        field = IncludeField(entries: [.init(segments: [segment], variables: variables, queryItems: queryItems)])
    }
}

/// Includes a to-many relationship: an array of links, one link to a collection, or an
/// embedded array.
///
/// ```swift
/// ToMany(.contacts)
/// ```
public struct ToMany<Key: IncludeKey>: Sendable {
    /// The field.
    public let field: IncludeField

    /// Includes the relation named by `key` as to-many.
    ///
    /// - Parameters:
    ///   - key: The relation, usually a model coding key.
    ///   - queryItems: Appended to the relationship's URL(s).
    ///   - variables: Expand the relationship's templated links.
    public init(_ key: Key, queryItems: [FieldQueryItem] = [], variables: [String: TemplateValue] = [:]) {
        let segment = IncludePath.Segment(rel: LinkRelation(key.includeKeyName), isToMany: true)
        field = IncludeField(entries: [.init(segments: [segment], variables: variables, queryItems: queryItems)])
    }
}

/// Includes a relationship and, inside it, one of the related model's own include lists,
/// to any depth.
///
/// ```swift
/// // Every contact, and each contact's contacts and website.
/// Nested(Contact.self, including: .full, at: .contacts, toMany: true)
/// ```
public struct Nested<Key: IncludeKey>: Sendable {
    /// The field.
    public let field: IncludeField

    /// Includes the relation at `key` and, below it, `includeType`'s relationships.
    ///
    /// - Parameters:
    ///   - type: The related model.
    ///   - includeType: Which of its include lists to apply below the relation.
    ///   - key: The relation in this model.
    ///   - toMany: Whether the relation is to-many.
    ///   - queryItems: Appended to the relationship's URL(s).
    ///   - variables: Expand the relationship's templated links.
    public init<Model: IncludableType>(
        _ type: Model.Type, including includeType: Model.IncludeType, at key: Key, toMany: Bool = false,
        queryItems: [FieldQueryItem] = [], variables: [String: TemplateValue] = [:]
    ) where Model.IncludeType: IncludeTypeInterface {
        let segment = IncludePath.Segment(rel: LinkRelation(key.includeKeyName), isToMany: toMany)
        var entries = [IncludeField.Entry(segments: [segment], variables: variables, queryItems: queryItems)]
        for inner in includeType.prepareIncludes() {
            entries += inner.nested(under: segment)
        }
        field = IncludeField(entries: entries)
    }
}

extension IncludePlan {
    /// Compiles typed include fields into a plan, exactly as the equivalent string paths
    /// would compile.
    ///
    /// - Throws: ``IncludePathError/Code/conflictingInclude``.
    public init(fields: [IncludeField]) throws(IncludePathError) {
        self.init()
        for field in fields {
            for entry in field.entries {
                try add(IncludePath(segments: entry.segments), variables: entry.variables, queryItems: entry.queryItems)
            }
        }
    }
}
