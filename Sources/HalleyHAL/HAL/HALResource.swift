import Foundation

/// A HAL resource: its state, its `_links` and its `_embedded` resources.
///
/// ```swift
/// let resource = try HALResource(parsing: body, url: URL(string: "https://api.example.com/orders"))
/// resource.state["total"]?.intValue
/// resource.links.link(for: .next)?.href
/// resource.embedded.resources(for: "ea:order").count
/// resource.url(for: resource.links.link(for: .next)!)   // absolute URL
/// ```
///
/// `_links` and `_embedded` are the only reserved names (HAL draft, section 4); any other
/// member, underscore or not, is state. HAL-FORMS `_templates` are read into ``forms`` and
/// stay in the state as written.
public struct HALResource: Sendable, Hashable {
    /// The resource object as written, `_links` and `_embedded` included.
    public var json: JSONObject { parts.json }
    /// The resource's links: `_links`, and for a resource the library fetched (or an
    /// ``ActionResponse/resource(options:)``) the links of the response's `Link` header
    /// field (RFC 8288) beside them.
    public var links: Links { parts.links }
    /// The resources in `_embedded`.
    public var embedded: EmbeddedResources { parts.embedded }
    /// The HAL-FORMS templates in `_templates`: what the client can do here. Servers such as
    /// Spring HATEOAS write them only when asked for `application/prs.hal-forms+json` (see
    /// ``RequestPolicy/acceptsForms``); empty otherwise.
    ///
    /// ```swift
    /// let order = try HALResource(json: ["_templates": ["default": ["method": "delete"]]])
    /// order.forms.default?.method   // DELETE
    /// order.forms.keys              // ["default"]
    /// ```
    public var forms: HALForms { parts.forms }
    /// The URL relative hrefs resolve against: the URL the document came from (after
    /// redirects) for a top-level resource; for an embedded resource, its own `self` link
    /// when it has one, otherwise the resource that embeds it.
    public var baseURL: URL? { parts.base.location?.url }

    /// ``baseURL`` as the engine carries it: its text, with no `URL` made for it.
    package var baseLocation: LazyURL? { parts.base.location }

    /// Whether this resource came from another's `_embedded` (its ``baseURL`` may then be the
    /// embedding resource's).
    package var isEmbedded: Bool { parts.isEmbedded }

    /// Every part in one immutable box. A traversal hands each document from the parser
    /// through the request pipeline, the fetch table and the merge, about twenty copies: as a
    /// box a copy is one reference count, where the parts themselves hold a dozen references.
    private final class Parts: Sendable {
        let json: JSONObject
        let links: Links
        /// `nil` when empty, as for most resources: an empty value of either holds several
        /// references, which every resource retained and released for nothing.
        private let storedEmbedded: EmbeddedResources?
        private let storedForms: HALForms?
        /// Where ``baseURL`` comes from, as ``base`` tells it.
        private let storedBase: Base
        let isEmbedded: Bool

        var embedded: EmbeddedResources { storedEmbedded ?? EmbeddedResources(scope: links.scope) }

        var forms: HALForms { storedForms ?? HALForms() }

        /// ``baseURL`` possibly still relative to its own base, made absolute only when asked:
        /// most resources never resolve anything.
        var base: Base {
            guard case .selfLinkOrDocument(let document) = storedBase else { return storedBase }
            return Base.of(links, document: document)
        }

        init(
            json: JSONObject, links: Links, embedded: EmbeddedResources?, forms: HALForms?, base: Base,
            isEmbedded: Bool
        ) {
            self.json = json
            self.links = links
            self.storedEmbedded = embedded
            self.storedForms = forms
            self.storedBase = base
            self.isEmbedded = isEmbedded
        }
    }

    private let parts: Parts

    private init(parts: Parts) {
        self.parts = parts
    }

    /// Parses a HAL document.
    ///
    /// - Parameters:
    ///   - data: The body, UTF-8 JSON.
    ///   - url: The URL the body came from; relative hrefs resolve against it.
    ///   - options: Strictness and limits.
    /// - Throws: ``HALDocumentError`` naming what is wrong and its JSON path.
    public init(parsing data: Data, url: URL? = nil, options: HALParsingOptions = HALParsingOptions())
        throws(HALDocumentError)
    {
        try self.init(parsing: data, location: url.map(LazyURL.init), options: options)
    }

    /// ``init(parsing:url:options:)`` for a document fetched from `location`.
    package init(parsing data: Data, location: LazyURL?, options: HALParsingOptions) throws(HALDocumentError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: data, options: options.json)
        } catch {
            throw HALDocumentError(error, url: location?.url)
        }
        try self.init(json: value, location: location, options: options)
    }

    /// This resource with the links of a `Link` field value read from the response at
    /// `responseURL`.
    package func addingLinks(fromHeader field: String, url responseURL: URL) -> HALResource {
        let selfURL = links.selfLink.flatMap { self.url(for: $0) }
        let (headerLinks, problems) = LinkHeader.links(in: field, url: responseURL, selfURL: selfURL)
        let merged = links.addingHeaderLinks(headerLinks, problems: problems) { link in
            self.url(for: link)?.absoluteString ?? link.href
        }
        return HALResource(
            parts: Parts(
                json: json, links: merged, embedded: embedded, forms: forms, base: parts.base, isEmbedded: isEmbedded))
    }

    /// Reads a HAL resource from a parsed JSON value.
    ///
    /// - Throws: ``HALDocumentError`` naming what is wrong and its JSON path.
    public init(json: JSONValue, url: URL? = nil, options: HALParsingOptions = HALParsingOptions())
        throws(HALDocumentError)
    {
        try self.init(json: json, location: url.map(LazyURL.init), options: options)
    }

    /// ``init(json:url:options:)`` for a document from `location`.
    private init(json: JSONValue, location: LazyURL?, options: HALParsingOptions) throws(HALDocumentError) {
        guard case .object(let object) = json else {
            throw HALDocumentError(
                code: .resourceNotObject, path: "$",
                message: "a HAL document must be an object, not \(json.kindWithArticle)", url: location?.url)
        }
        do {
            try self.init(object: object, path: "$", baseURL: location, scope: .empty, options: options)
        } catch {
            throw error.with(url: location?.url)
        }
    }

    init(object: JSONObject, path: String, baseURL: LazyURL?, scope: CURIEScope, options: HALParsingOptions)
        throws(HALDocumentError)
    {
        let links: Links
        let forms: HALForms?
        let embedded: EmbeddedResources?
        // HAL's own members in one pass (each key is there once): three lookups scanned every
        // member three times, and the other members start with "_" rarely.
        var linksValue: JSONValue?
        var templatesValue: JSONValue?
        var embeddedValue: JSONValue?
        for position in 0..<object.count {
            let key = object.key(atPosition: position)
            // The first byte by index: `utf8.first` goes through the generic collection path.
            let utf8 = key.utf8
            guard !utf8.isEmpty, utf8[utf8.startIndex] == UInt8(ascii: "_") else { continue }
            if key.hasSameCodeUnits(as: "_links") {
                linksValue = object.value(atPosition: position)
            } else if key.hasSameCodeUnits(as: "_embedded") {
                embeddedValue = object.value(atPosition: position)
            } else if key.hasSameCodeUnits(as: "_templates") {
                templatesValue = object.value(atPosition: position)
            }
        }
        switch linksValue {
        case nil, .null?:
            links = Links(scope: scope)
        case .object(let linksObject)?:
            links = try Links(
                json: linksObject, lazyPath: { JSONPath.appending(.key("_links"), to: path) },
                scope: scope, options: options)
        case let other?:
            throw HALDocumentError(
                code: .linksNotObject, path: JSONPath.appending(.key("_links"), to: path),
                message: "_links is \(other.kindWithArticle), not an object")
        }
        switch templatesValue {
        case nil, .null?:
            forms = nil
        case let templates?:
            forms = try HALForms(
                templates: templates, path: JSONPath.appending(.key("_templates"), to: path), options: options)
        }
        // The self link is looked for only when the base is asked for: most fetched documents
        // are merged without resolving anything against them.
        var base = Base.selfLinkOrDocument(baseURL)
        switch embeddedValue {
        case nil, .null?:
            embedded = nil
        case .object(let embeddedObject)?:
            // Embedded resources resolve against this one's base: resolve the self link now.
            base = .document(Base.of(links, document: baseURL).location)
            embedded = try EmbeddedResources(
                json: embeddedObject, path: JSONPath.appending(.key("_embedded"), to: path),
                baseURL: base.location, scope: links.scope, options: options)
        case let other?:
            throw HALDocumentError(
                code: .embeddedNotObject, path: JSONPath.appending(.key("_embedded"), to: path),
                message: "_embedded is \(other.kindWithArticle), not an object")
        }
        parts = Parts(
            json: object, links: links, embedded: embedded, forms: forms, base: base, isEmbedded: path != "$")
    }

    /// Where ``baseURL`` comes from: a `self` link is parsed only when the base is asked for,
    /// as most fetched documents are merged without resolving anything against them.
    private enum Base: Sendable, Hashable {
        /// The URL the document came from, or the embedding resource's base.
        case document(LazyURL?)
        /// A non-templated `self` link, which wins when it resolves to a URL with a scheme.
        case selfLink(String, document: LazyURL?)
        /// The resource's own `_links` decide between the two above (``of(_:document:)``):
        /// only ever stored, never read (``Parts/base`` reads it as one of them).
        case selfLinkOrDocument(LazyURL?)

        /// The base of a resource with `links` from `document`: its non-templated `self` link,
        /// if any.
        static func of(_ links: Links, document: LazyURL?) -> Base {
            guard let selfLink = links.selfLink?.followed, !selfLink.isTemplated else { return .document(document) }
            return .selfLink(selfLink.href, document: document)
        }

        /// The base, possibly relative to its own base when made from a caller's `URL`.
        var location: LazyURL? {
            switch self {
            case .document(let location), .selfLinkOrDocument(let location):
                return location
            case .selfLink(let href, let document):
                // Resolved as the engine resolves every link (``URLResolution``).
                return URLResolution.resolve(href, against: document, requiringScheme: true) ?? document
            }
        }
    }

    /// Whether two resources have the same JSON, links, embedded resources, forms and base.
    public static func == (lhs: HALResource, rhs: HALResource) -> Bool {
        if lhs.parts === rhs.parts { return true }
        return lhs.json == rhs.json && lhs.links == rhs.links && lhs.embedded == rhs.embedded
            && lhs.forms == rhs.forms && lhs.parts.base == rhs.parts.base && lhs.isEmbedded == rhs.isEmbedded
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(json)
        hasher.combine(links)
        hasher.combine(embedded)
        hasher.combine(forms)
        hasher.combine(parts.base)
        hasher.combine(isEmbedded)
    }

    /// The resource's own attributes: everything but `_links` and `_embedded`.
    public var state: JSONObject {
        var state = json
        state.removeValue(forKey: "_links")
        state.removeValue(forKey: "_embedded")
        return state
    }

    /// Every malformed link and HAL-FORMS template left out of this resource and the
    /// resources it embeds, every template member read as its default (``HALForm/problems``),
    /// every `_embedded` relation that holds plain values rather than resources, and every
    /// value of the response's `Link` header field that could not be read or names another
    /// context (path `Link header, byte N`).
    public var problems: [HALDocumentError] {
        links.problems + forms.problems + embedded.problems
            + embedded.entries.flatMap { $0.resources.flatMap(\.problems) }
    }

    /// The absolute URL of a non-templated link, resolved against ``baseURL`` (RFC 3986,
    /// section 5). `nil` for templated links (expand them first) and unusable hrefs.
    public func url(for link: Link) -> URL? {
        guard !link.isTemplated else { return nil }
        return resolve(link.href)
    }

    /// Resolves an href (or an expanded template) against ``baseURL``.
    public func resolve(_ href: String) -> URL? {
        // Against the base's text: a plain href joins to it without parsing the base.
        URLResolution.resolve(href, against: baseLocation)?.url
    }
}

extension Links {
    /// Empty links that still see the enclosing resources' CURIE prefixes.
    init(scope: CURIEScope) {
        self.init()
        self.scope = scope
    }
}

/// The `_embedded` resources of a HAL resource, by relation, in document order.
public struct EmbeddedResources: Sendable, Hashable {
    /// One relation of `_embedded`.
    public struct Entry: Sendable, Hashable {
        /// The relation as written.
        public let rel: LinkRelation
        /// The embedded resources; one element when the document wrote a single object.
        public let resources: [HALResource]
        /// Whether the document wrote an array.
        public let isArray: Bool
    }

    /// A relation of `_embedded` that holds plain values rather than resources.
    public struct Value: Sendable, Hashable {
        /// The relation as written.
        public let rel: LinkRelation
        /// What the document wrote under it.
        public let value: JSONValue
    }

    /// The relations in document order.
    public let entries: [Entry]
    /// Relations that hold plain values (strings, numbers, arrays of them) instead of
    /// resources, as written: Spring HATEOAS renders `CollectionModel<String>` as
    /// `{"_embedded": {"strings": ["a", "b"]}}`. They stay in the document and are reported in
    /// ``problems``; ``HALParsingOptions/MalformedLinkPolicy/fail`` throws instead.
    public let values: [Value]
    /// One ``HALDocumentError/Code/resourceNotObject`` per relation in ``values``.
    public let problems: [HALDocumentError]
    private let scope: CURIEScope

    init(scope: CURIEScope) {
        entries = []
        values = []
        problems = []
        self.scope = scope
    }

    init(json: JSONObject, path: String, baseURL: LazyURL?, scope: CURIEScope, options: HALParsingOptions)
        throws(HALDocumentError)
    {
        var entries: [Entry] = []
        entries.reserveCapacity(json.count)
        var values: [Value] = []
        var problems: [HALDocumentError] = []
        func keepAsData(_ rel: String, _ value: JSONValue, _ problem: HALDocumentError) throws(HALDocumentError) {
            let tagged = problem.tagged(rel: rel)
            if options.malformedLinks == .fail { throw tagged }
            values.append(Value(rel: LinkRelation(rel), value: value))
            problems.append(tagged)
        }
        for (rel, value) in json.members {
            let relPath = JSONPath.appending(.key(rel), to: path)
            switch value {
            case .object(let object):
                let resource = try HALResource(
                    object: object, path: relPath, baseURL: baseURL, scope: scope, options: options)
                entries.append(Entry(rel: LinkRelation(rel), resources: [resource], isArray: false))
            case .array(let elements):
                if let index = elements.firstIndex(where: { $0.objectValue == nil }) {
                    let element = elements[index]
                    try keepAsData(
                        rel, value,
                        HALDocumentError(
                            code: .resourceNotObject, path: JSONPath.appending(.index(index), to: relPath),
                            message: "embedded \(rel) holds \(element.kindWithArticle), not a resource object"))
                    continue
                }
                var resources: [HALResource] = []
                resources.reserveCapacity(elements.count)
                for (index, element) in elements.enumerated() {
                    guard case .object(let object) = element else { continue }
                    let elementPath = JSONPath.appending(.index(index), to: relPath)
                    resources.append(
                        try HALResource(
                            object: object, path: elementPath, baseURL: baseURL, scope: scope, options: options))
                }
                entries.append(Entry(rel: LinkRelation(rel), resources: resources, isArray: true))
            default:
                try keepAsData(
                    rel, value,
                    HALDocumentError(
                        code: .resourceNotObject, path: relPath,
                        message: "embedded \(rel) is \(value.kindWithArticle), not a resource or an array of resources")
                )
            }
        }
        self.entries = entries
        self.values = values
        self.problems = problems
        self.scope = scope
    }

    /// The relation names in document order.
    public var rels: [LinkRelation] { entries.map(\.rel) }

    /// The entry for `rel`, matched like ``Links/relation(_:)`` (as written, or by CURIE
    /// expansion).
    public func entry(for rel: LinkRelation) -> Entry? {
        scope.match(rel.rawValue, in: entries.lazy.map(\.rel.rawValue)).map { entries[$0] }
    }

    /// The embedded resources of `rel`; empty when there are none.
    public func resources(for rel: LinkRelation) -> [HALResource] {
        entry(for: rel)?.resources ?? []
    }

    /// The plain value of `rel` when it holds data rather than resources (see ``values``).
    public func value(for rel: LinkRelation) -> JSONValue? {
        let keys = values.map(\.rel.rawValue)
        return scope.match(rel.rawValue, in: keys).map { values[$0].value }
    }

    /// Plain-value problems of `rel`.
    package func problems(for rel: LinkRelation) -> [HALDocumentError] {
        guard !problems.isEmpty, value(for: rel) != nil else { return [] }
        let keys = values.map(\.rel.rawValue)
        guard let index = scope.match(rel.rawValue, in: keys) else { return [] }
        return [problems[index]]
    }

    /// The first embedded resource of `rel`.
    public func resource(for rel: LinkRelation) -> HALResource? {
        entry(for: rel)?.resources.first
    }
}

extension HALResource: CustomStringConvertible {
    /// Where the resource is and what it holds, on one line:
    /// `HAL resource https://api.example.com/contacts/1: attributes id, name; links self, contacts ×2; embedded item ×3`.
    public var description: String {
        func counted(_ name: String, _ count: Int) -> String { count == 1 ? name : "\(name) ×\(count)" }
        var parts: [String] = []
        let attributes = state.keys
        if !attributes.isEmpty { parts.append("attributes " + attributes.joined(separator: ", ")) }
        let rels = links.relations.filter { $0.rel != .curies }
        if !rels.isEmpty {
            parts.append("links " + rels.map { counted($0.rel.rawValue, $0.links.count) }.joined(separator: ", "))
        }
        if !embedded.entries.isEmpty {
            parts.append(
                "embedded "
                    + embedded.entries.map { counted($0.rel.rawValue, $0.resources.count) }.joined(separator: ", "))
        }
        if !forms.isEmpty { parts.append("forms " + forms.keys.joined(separator: ", ")) }
        let place = baseURL?.absoluteString ?? "(no URL)"
        return "HAL resource \(place)" + (parts.isEmpty ? "" : ": " + parts.joined(separator: "; "))
    }
}
