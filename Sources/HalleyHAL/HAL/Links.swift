import Foundation

/// The `_links` of a HAL resource: every relation with its links, in document order.
///
/// For each relation it remembers whether the document wrote one link object or an array,
/// so encoding gives back the same shape. Relations are found as written (`ex:contacts`),
/// by their expanded URI, or through any prefix bound to the same namespace.
///
/// ```swift
/// let links = resource.links
/// links.link(for: .next)?.href
/// links.links(for: "ex:contacts").map(\.href)
/// links.link(for: "ex:contacts", named: "primary")
/// links.documentationURL(for: "ex:contacts")
/// ```
///
/// `Links` is a `Sequence` of every link with its relation, in document order
/// (`for (rel, link) in resource.links`), and `Codable`, so models can declare
/// `let _links: Links?`.
///
/// For a resource fetched by the library, the links of the response's `Link` header field
/// (RFC 8288) are links too, so include paths, follow chains and paging follow them: each after
/// the `_links` ones of its relation, relations only in the header after `_links`'s. A header
/// link `_links` already has (same relation, same URL) is not repeated, and
/// ``Relation/headerLinkCount`` says which came from the header.
public struct Links: Sendable, Hashable {
    /// One relation of `_links`.
    public struct Relation: Sendable, Hashable {
        /// The relation as written in the document.
        public let rel: LinkRelation
        /// Its links; one element when the document wrote a single object.
        public let links: [Link]
        /// Whether the document wrote an array (even of zero or one link).
        public let isArray: Bool
        /// How many of ``links``, counted from the end, came from the response's `Link` header
        /// field (RFC 8288) rather than `_links`: 0 for a relation only in `_links`,
        /// `links.count` for one only in the header. A header link `_links` already has (same
        /// relation, same URL) is not repeated.
        public let headerLinkCount: Int

        init(rel: LinkRelation, links: [Link], isArray: Bool, headerLinkCount: Int = 0) {
            self.rel = rel
            self.links = links
            self.isArray = isArray
            self.headerLinkCount = headerLinkCount
        }
    }

    /// The relations in document order, `curies` included.
    ///
    /// For links parsed from a document this array is made on each read; a loop over it should
    /// read it once. ``relation(_:)`` and ``link(for:)`` make only what they return.
    public var relations: [Relation] {
        switch storage {
        case .relations(let relations): return relations
        case .document(let object): return object.members.map { Self.relation($0.key, $0.value) }
        }
    }
    /// The CURIE prefixes this resource declares itself.
    public private(set) var curies: [CURIE]
    /// Malformed links that were left out, each with its path, and the values of a `Link`
    /// header field that could not be read (``HALDocumentError/Code/invalidLinkHeader``). A
    /// `Link` value anchored at another resource is that resource's link: left out, and not a
    /// problem. See ``HALParsingOptions``.
    public private(set) var problems: [HALDocumentError]

    var scope: CURIEScope

    /// Where the relations come from. A parsed `_links` object whose links are all well
    /// formed is kept as it is, and a relation's `Link` values are made when it is asked for:
    /// most fetched documents are merged without anyone reading their links.
    private enum Storage: Sendable {
        case relations([Relation])
        /// A `_links` object every member of which is a valid link object or array of them.
        case document(JSONObject)
    }

    private var storage: Storage

    /// A member of a `_links` object known to be well formed, as a relation.
    private static func relation(_ key: String, _ value: JSONValue) -> Relation {
        switch value {
        case .array(let elements):
            return Relation(
                rel: LinkRelation(key),
                links: elements.map { element in
                    guard case .object(let object) = element else { return Link(validated: [:]) }
                    return Link(validated: object)
                },
                isArray: true)
        case .object(let object):
            return Relation(rel: LinkRelation(key), links: [Link(validated: object)], isArray: false)
        default:
            return Relation(rel: LinkRelation(key), links: [], isArray: false)
        }
    }

    /// Links with no relations.
    public init() {
        self.init(relations: [], curies: [], problems: [], scope: .empty)
    }

    /// Links built in code, each relation written as an array when it has several links.
    public init(_ links: KeyValuePairs<LinkRelation, [Link]>) {
        let relations = links.map { Relation(rel: $0.key, links: $0.value, isArray: $0.value.count != 1) }
        self.init(relations: relations, curies: [], problems: [], scope: .empty)
    }

    /// A well-formed `_links` object without CURIEs, kept as it is (see `Storage`).
    private init(document: JSONObject, scope: CURIEScope) {
        storage = .document(document)
        curies = []
        problems = []
        self.scope = scope
    }

    private init(relations: [Relation], curies: [CURIE], problems: [HALDocumentError], scope: CURIEScope) {
        storage = .relations(relations)
        self.curies = curies
        self.problems = problems
        self.scope = scope.adding(curies)
    }

    /// Whether two link sets have the same relations (in order, with their shapes), CURIEs,
    /// problems and enclosing CURIE prefixes.
    public static func == (lhs: Links, rhs: Links) -> Bool {
        lhs.relations == rhs.relations && lhs.curies == rhs.curies && lhs.problems == rhs.problems
            && lhs.scope == rhs.scope
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(relations)
        hasher.combine(curies)
        hasher.combine(problems)
        hasher.combine(scope)
    }

    /// The relation names in document order, without `curies`.
    public var rels: [LinkRelation] {
        switch storage {
        case .relations(let relations): return relations.lazy.map(\.rel).filter { $0 != .curies }
        case .document(let object): return object.keys.map { LinkRelation($0) }.filter { $0 != .curies }
        }
    }

    /// The relation entry for `rel`, found as written, by expanded URI, or through a prefix
    /// bound to the same namespace.
    public func relation(_ rel: LinkRelation) -> Relation? {
        switch storage {
        case .relations(let relations):
            return scope.match(rel.rawValue, in: relations.lazy.map(\.rel.rawValue)).map { relations[$0] }
        case .document(let object):
            return position(of: rel, in: object).map {
                Self.relation(object.key(atPosition: $0), object.value(atPosition: $0))
            }
        }
    }

    /// How many links `rel` has, without making them: a limit can be checked before a
    /// relation of 400,000 links becomes 400,000 values.
    package func linkCount(for rel: LinkRelation) -> Int? {
        switch storage {
        case .relations:
            return relation(rel)?.links.count
        case .document(let object):
            return position(of: rel, in: object).map {
                if case .array(let elements) = object.value(atPosition: $0) { return elements.count }
                return 1
            }
        }
    }

    /// Whether the links have a relation `rel` (matched as ``relation(_:)`` matches).
    package func contains(_ rel: LinkRelation) -> Bool {
        switch storage {
        case .relations: return relation(rel) != nil
        case .document(let object): return position(of: rel, in: object) != nil
        }
    }

    private func position(of rel: LinkRelation, in object: JSONObject) -> Int? {
        // The same spelling first, read in place: the view of the keys below allocates its
        // closure's context, once per document for the `self` link alone.
        let name = rel.rawValue
        for position in 0..<object.count where object.key(atPosition: position).hasSameCodeUnits(as: name) {
            return position
        }
        return scope.match(name, in: (0..<object.count).lazy.map { object.key(atPosition: $0) })
    }

    /// All links of `rel`; `nil` when the resource has no such relation (as in the original
    /// Halley). The subscript `links[rel]` gives an empty array instead.
    public func links(for rel: LinkRelation) -> [Link]? {
        relation(rel)?.links
    }

    /// The first link of `rel`.
    public func link(for rel: LinkRelation) -> Link? {
        guard case .document(let object) = storage else { return relation(rel)?.links.first }
        // Without making the relation's other links.
        switch position(of: rel, in: object).map({ object.value(atPosition: $0) }) {
        case .object(let link)?: return Link(validated: link)
        case .array(let links)?: return links.first?.objectValue.map { Link(validated: $0) }
        default: return nil
        }
    }

    /// The link of `rel` whose `name` is `name`.
    public func link(for rel: LinkRelation, named name: String) -> Link? {
        relation(rel)?.links.first { $0.name == name }
    }

    /// The `self` link.
    public var selfLink: Link? { link(for: .current) }

    /// The links of `rel`; empty when the resource has no such relation.
    public subscript(rel: LinkRelation) -> [Link] { relation(rel)?.links ?? [] }

    /// Malformed links of `rel` that were left out while parsing; with `name`, only those
    /// whose own `name` is `name` (a malformed sibling with another name is not selected).
    public func problems(for rel: LinkRelation, named name: String? = nil) -> [HALDocumentError] {
        guard !problems.isEmpty else { return [] }
        return problems.filter { problem in
            guard let problemRel = problem.relation?.rawValue else { return false }
            if let name, problem.linkName != name { return false }
            return scope.sameRelation(rel.rawValue, problemRel)
        }
    }

    /// The expanded URI of a relation: through its CURIE prefix, or itself when it is a URI.
    /// `nil` for registered names such as `next` and for unbound prefixes.
    public func expandedURI(of rel: LinkRelation) -> String? {
        scope.expandedURI(of: rel.rawValue)
    }

    /// Where a curied relation is documented: its prefix's `href` with `{rel}` filled in.
    public func documentationURL(for rel: LinkRelation) -> URL? {
        guard scope.curie(for: rel.rawValue) != nil, let expanded = scope.expandedURI(of: rel.rawValue) else {
            return nil
        }
        return URL(string: expanded)
    }

    /// The links as the `_links` JSON object, in the shapes they were written; links of a
    /// `Link` header field are in it too, with their absolute hrefs.
    public var json: JSONObject {
        if case .document(let object) = storage { return object }
        var object = JSONObject()
        for relation in relations {
            if relation.isArray {
                object[relation.rel.rawValue] = .array(relation.links.map { .object($0.json) })
            } else if let link = relation.links.first {
                object[relation.rel.rawValue] = .object(link.json)
            }
        }
        return object
    }
}

extension Links {
    /// These links with those of a response's `Link` header field (``LinkHeader``) added:
    /// after `_links`'s own in a relation both have (matched as ``relation(_:)`` matches),
    /// else as new relations after `_links`'s, in header order. A header link whose relation
    /// already has a link to the same URL (`comparable` of a `_links` link: its resolved URL)
    /// is left out, as is a repeat within the header: `_links` wins.
    func addingHeaderLinks(
        _ headerLinks: [(rel: LinkRelation, link: Link)], problems headerProblems: [HALDocumentError],
        comparable: (Link) -> String
    ) -> Links {
        var copy = self
        copy.problems += headerProblems
        guard !headerLinks.isEmpty else { return copy }
        // The header's relations in order of first appearance, each with its distinct hrefs.
        // Relations and hrefs are compared by code units, as `_links` keys are.
        var order: [CodeUnitKey] = []
        var grouped: [CodeUnitKey: (links: [Link], hrefs: Set<CodeUnitKey>)] = [:]
        for (rel, link) in headerLinks {
            let key = CodeUnitKey(rel.rawValue)
            if grouped[key] == nil {
                order.append(key)
                grouped[key] = ([], [])
            }
            if grouped[key]?.hrefs.insert(CodeUnitKey(link.href)).inserted == true {
                grouped[key]?.links.append(link)
            }
        }
        var relations = self.relations
        // Where `_links` has each relation, found as `relation(_:)` finds it (the spelling
        // first, then the expanded URI) but by hash: a header of many relations over a
        // document of many must not cost their product.
        var spelled: [CodeUnitKey: Int] = [:]
        var expanded: [CodeUnitKey: Int] = [:]
        for (index, relation) in relations.enumerated() {
            let key = CodeUnitKey(relation.rel.rawValue)
            if spelled[key] == nil { spelled[key] = index }
            if let uri = scope.expandedURI(of: relation.rel.rawValue), expanded[CodeUnitKey(uri)] == nil {
                expanded[CodeUnitKey(uri)] = index
            }
        }
        for key in order {
            guard let links = grouped[key]?.links else { continue }
            let match = spelled[key] ?? scope.expandedURI(of: key.string).flatMap { expanded[CodeUnitKey($0)] }
            guard let index = match else {
                relations.append(
                    Relation(
                        rel: LinkRelation(key.string), links: links, isArray: links.count != 1,
                        headerLinkCount: links.count))
                continue
            }
            let existing = relations[index]
            let known = Set(existing.links.map { CodeUnitKey(comparable($0)) })
            let added = links.filter { !known.contains(CodeUnitKey($0.href)) }
            guard !added.isEmpty else { continue }
            relations[index] = Relation(
                rel: existing.rel, links: existing.links + added,
                isArray: existing.isArray || existing.links.count + added.count != 1,
                headerLinkCount: existing.headerLinkCount + added.count)
        }
        copy.storage = .relations(relations)
        return copy
    }
}

extension Links: Sequence {
    /// One link with the relation it is listed under.
    ///
    /// A tuple, as a dictionary's elements are, so a loop can take it apart:
    /// `for (rel, link) in resource.links`.
    public typealias Element = (rel: LinkRelation, link: Link)

    /// Walks the links in document order, each relation's array in its order.
    public struct Iterator: IteratorProtocol, Sendable {
        private let links: Links
        private var relation = 0
        private var position = 0

        init(_ links: Links) {
            self.links = links
        }

        /// The next link and its relation; `nil` after the last.
        public mutating func next() -> Element? {
            switch links.storage {
            case .relations(let relations):
                while relation < relations.count {
                    let current = relations[relation]
                    if position < current.links.count {
                        defer { position += 1 }
                        return (current.rel, current.links[position])
                    }
                    relation += 1
                    position = 0
                }
            case .document(let object):
                // The object is well formed: every member is a link object or an array of them.
                while relation < object.count {
                    let rel = LinkRelation(object.key(atPosition: relation))
                    switch object.value(atPosition: relation) {
                    case .object(let link) where position == 0:
                        position = 1
                        return (rel, Link(validated: link))
                    case .array(let elements) where position < elements.count:
                        defer { position += 1 }
                        return (rel, Link(validated: elements[position].objectValue ?? [:]))
                    default:
                        relation += 1
                        position = 0
                    }
                }
            }
            return nil
        }
    }

    /// Every link of `_links`, in document order, paired with its relation: a relation written
    /// as an array gives each of its links in turn, and `curies` is listed like any relation.
    ///
    /// ```swift
    /// for (rel, link) in resource.links where link.isTemplated {
    ///     print(rel, link.href)
    /// }
    /// ```
    public func makeIterator() -> Iterator {
        Iterator(self)
    }

    /// The number of links, counted without making them.
    public var underestimatedCount: Int {
        switch storage {
        case .relations(let relations):
            return relations.reduce(0) { $0 + $1.links.count }
        case .document(let object):
            return (0..<object.count).reduce(0) { count, position in
                if case .array(let elements) = object.value(atPosition: position) { return count + elements.count }
                return count + 1
            }
        }
    }
}

extension Links {
    /// Whether every member of a `_links` object is a valid link object or an array of them,
    /// and none declares CURIEs: such an object serves as the links themselves.
    private static func isWellFormed(_ json: JSONObject) -> Bool {
        for position in 0..<json.count {
            if json.key(atPosition: position).hasSameCodeUnits(as: LinkRelation.curies.rawValue) { return false }
            switch json.value(atPosition: position) {
            case .object(let object):
                guard Link.isWellFormed(object) else { return false }
            case .array(let elements):
                for element in elements {
                    guard case .object(let object) = element, Link.isWellFormed(object) else { return false }
                }
            default:
                return false
            }
        }
        return true
    }

    /// Reads a `_links` object.
    ///
    /// - Parameters:
    ///   - json: The `_links` object.
    ///   - path: Its JSON path, used in errors.
    ///   - scope: CURIE prefixes of the enclosing resources.
    ///   - options: Whether malformed links throw or are reported in ``problems``.
    init(json: JSONObject, path: String, scope: CURIEScope, options: HALParsingOptions) throws(HALDocumentError) {
        try self.init(json: json, lazyPath: { path }, scope: scope, options: options)
    }

    /// ``init(json:path:scope:options:)`` with paths built only for the problems found.
    init(json: JSONObject, lazyPath path: () -> String, scope: CURIEScope, options: HALParsingOptions)
        throws(HALDocumentError)
    {
        if Self.isWellFormed(json) {
            self.init(document: json, scope: scope)
            return
        }
        var relations: [Relation] = []
        relations.reserveCapacity(json.count)
        var problems: [HALDocumentError] = []
        var curies: [CURIE] = []

        func report(_ error: HALDocumentError, rel: String, link: JSONObject? = nil) throws(HALDocumentError) {
            var tagged = error.tagged(rel: rel)
            if case .string(let name)? = link?["name"] { tagged.linkName = name }
            if options.malformedLinks == .fail { throw tagged }
            problems.append(tagged)
        }

        for (rel, value) in json.members {
            func relPath() -> String { JSONPath.appending(.key(rel), to: path()) }
            var links: [Link] = []
            let isArray: Bool
            switch value {
            case .object(let object):
                isArray = false
                do { links.append(try Link(json: object, lazyPath: relPath)) } catch {
                    try report(error, rel: rel, link: object)
                }
            case .array(let elements):
                isArray = true
                links.reserveCapacity(elements.count)
                for (index, element) in elements.enumerated() {
                    func elementPath() -> String { JSONPath.appending(.index(index), to: relPath()) }
                    guard case .object(let object) = element else {
                        try report(
                            HALDocumentError(
                                code: .linkNotObject, path: elementPath(),
                                message: "link array of \(rel) holds \(element.kindWithArticle), not a link object"),
                            rel: rel)
                        continue
                    }
                    do { links.append(try Link(json: object, lazyPath: elementPath)) } catch {
                        try report(error, rel: rel, link: object)
                    }
                }
            default:
                try report(
                    HALDocumentError(
                        code: .linkNotObject, path: relPath(),
                        message: "relation \(rel) is \(value.kindWithArticle), not a link object or an array of links"),
                    rel: rel)
                continue
            }
            if rel.hasSameCodeUnits(as: LinkRelation.curies.rawValue) {
                curies = links.compactMap { link in link.name.map { CURIE(name: $0, href: link.href) } }
            }
            relations.append(Relation(rel: LinkRelation(rel), links: links, isArray: isArray))
        }
        self.init(relations: relations, curies: curies, problems: problems, scope: scope)
    }
}

extension Links: Codable {
    /// Decodes a `_links` object. Malformed links are kept in ``problems``, not thrown, so a
    /// model still decodes when a link it never follows is broken.
    ///
    /// Relations keep the decoder's key order, which `JSONDecoder` does not promise to be the
    /// document's.
    public init(from decoder: any Decoder) throws {
        // Halley's own decoder hands over the object: read it directly (see `Link`).
        if let source = decoder as? any JSONValueSource, case .object(let object)? = source.jsonValueForDecoding {
            try self.init(decodedFrom: object)
            return
        }
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        var relations: [Relation] = []
        var problems: [HALDocumentError] = []
        for key in container.allKeys {
            let rel = LinkRelation(key.stringValue)
            // The common shapes first; only a malformed relation pays for the general path.
            if let link = try? container.decode(Link.self, forKey: key) {
                relations.append(Relation(rel: rel, links: [link], isArray: false))
            } else if let links = try? container.decode([Link].self, forKey: key) {
                relations.append(Relation(rel: rel, links: links, isArray: true))
            } else {
                let value = try container.decode(JSONValue.self, forKey: key)
                let parsed = try Links(
                    json: [key.stringValue: value], path: "$", scope: .empty, options: HALParsingOptions())
                relations += parsed.relations
                problems += parsed.problems
            }
        }
        self.init(relations: relations, curies: Self.curies(in: relations), problems: problems, scope: .empty)
    }

    /// The links ``init(from:)`` decodes from `object`, read without containers, relation by
    /// relation as it does: one link, an array of links, or else whatever the parser keeps of
    /// the relation, with its problems.
    private init(decodedFrom object: JSONObject) throws {
        var relations: [Relation] = []
        relations.reserveCapacity(object.count)
        var problems: [HALDocumentError] = []
        relationLoop: for (rel, value) in object.members {
            switch value {
            case .object(let linkObject):
                if let link = Link(decodedFrom: linkObject) {
                    relations.append(Relation(rel: LinkRelation(rel), links: [link], isArray: false))
                    continue relationLoop
                }
            case .array(let elements):
                var links: [Link] = []
                links.reserveCapacity(elements.count)
                for element in elements {
                    guard case .object(let linkObject) = element, let link = Link(decodedFrom: linkObject) else {
                        break
                    }
                    links.append(link)
                }
                if links.count == elements.count {
                    relations.append(Relation(rel: LinkRelation(rel), links: links, isArray: true))
                    continue relationLoop
                }
            default:
                break
            }
            let parsed = try Links(json: [rel: value], path: "$", scope: .empty, options: HALParsingOptions())
            relations += parsed.relations
            problems += parsed.problems
        }
        self.init(relations: relations, curies: Self.curies(in: relations), problems: problems, scope: .empty)
    }

    /// The prefixes a `curies` relation declares.
    private static func curies(in relations: [Relation]) -> [CURIE] {
        relations.first { $0.rel == .curies }?.links.compactMap { link in
            link.name.map { CURIE(name: $0, href: link.href) }
        } ?? []
    }

    /// Encodes the links in the shapes they were written.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}

extension HALDocumentError {
    func tagged(rel: String) -> HALDocumentError {
        var copy = self
        copy.relation = LinkRelation(rel)
        return copy
    }
}
