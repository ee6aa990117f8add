import Foundation
import HalleyHAL

/// Finds a relation in a resource, the one way the traverser, follow chains, actions, pages
/// and forms all do it: `_embedded` or `_links` by preference, selection by link name, malformed links and
/// plain embedded values as errors, templates expanded with the variable layers, hrefs
/// resolved, the deprecation event, and the "available rels" message when it is missing.
struct RelationResolver: Sendable {
    /// Embedded first (HAL's intent; ``CallOptions/Preference/embedded``) or links first: a
    /// relation with a link is then followed even when it is embedded too.
    let embeddedFirst: Bool
    /// The call's variables: provider, manager and call layers already overlaid.
    let variables: [String: TemplateValue]
    /// Receives the deprecation events.
    let emit: @Sendable (HalleyEvent) -> Void
    /// The relation holding a collection's items (``CallOptions/collectionItemKey``).
    let itemKey: LinkRelation

    /// Where a relation's data is.
    enum Found {
        /// In `_embedded`, no request needed.
        case embedded(EmbeddedResources.Entry)
        /// In `_links`: the links selected (by name when one was given; possibly none) and
        /// whether the document wrote an array.
        case links([Link], isArray: Bool)
        /// Not in the resource.
        case missing
    }

    /// Finds `rel` (the link named `name`, when given) in `resource`.
    ///
    /// - Throws: ``HalleyError/Code/malformedLink`` when a link that would be selected is
    ///   malformed (a broken sibling with another name does not count), or when the relation
    ///   is only in `_embedded` and holds plain values rather than resources.
    func find(_ rel: LinkRelation, named name: String?, in resource: HALResource, includePath: String?)
        throws(HalleyError) -> Found
    {
        let relation = resource.links.relation(rel)
        if name == nil, let entry = resource.embedded.entry(for: rel), embeddedFirst || relation == nil {
            return .embedded(entry)
        }
        if let problem = resource.links.problems(for: rel, named: name).first {
            throw HalleyError(
                code: .malformedLink, includePath: includePath, url: resource.baseURL,
                message: "the link of \(rel) is malformed: \(problem.message) at \(problem.path)",
                underlying: problem)
        }
        guard let relation else {
            if let problem = resource.embedded.problems(for: rel).first {
                throw HalleyError(
                    code: .malformedLink, includePath: includePath, url: resource.baseURL,
                    message: "embedded \(rel) is not a resource: \(problem.message) at \(problem.path)",
                    underlying: problem)
            }
            return .missing
        }
        guard let name else { return .links(relation.links, isArray: relation.isArray) }
        let named = relation.links.filter { $0.name == name }
        return named.isEmpty ? .missing : .links(named, isArray: relation.isArray)
    }

    /// Who needs one link of a relation: the fix for several is said in that caller's terms.
    enum Selection {
        /// An include path: `rel@name`, or `[rel]` for all of them.
        case include
        /// Hop `number` of a follow chain: `.follow(rel, named:)`.
        case hop(Int)
        /// An action on a rel: `send(_:rel:of:linkName:)`.
        case action
    }

    /// The one link of a to-one relation.
    ///
    /// - Throws: ``HalleyError/Code/ambiguousRelation`` when there are several, naming the fix
    ///   `selection` has.
    func single(
        _ links: [Link], rel: LinkRelation, in resource: HALResource, includePath: String?,
        for selection: Selection = .include
    ) throws(HalleyError) -> Link? {
        guard links.count <= 1 else {
            let names = links.map { $0.name.map { "\"\($0)\"" } ?? "(unnamed)" }.joined(separator: ", ")
            let message: String
            switch selection {
            case .include:
                message =
                    "to-one relation \(rel) has \(links.count) links (names: \(names)); "
                    + "pick one with \(rel)@name or include it as [\(rel)]"
            case .hop(let number):
                message =
                    "hop \(number) (\(rel)) has \(links.count) links (names: \(names)) and a chain follows one; "
                    + Self.namedPick(among: links, rel: rel, for: selection)
            case .action:
                message =
                    "relation \(rel) has \(links.count) links (names: \(names)) and an action goes to one; "
                    + Self.namedPick(among: links, rel: rel, for: selection)
            }
            throw HalleyError(
                code: .ambiguousRelation, includePath: includePath, url: resource.baseURL, message: message)
        }
        return links.first
    }

    /// The one resource of a to-one embedded relation.
    ///
    /// - Throws: ``HalleyError/Code/ambiguousRelation`` when there are several, naming the fix
    ///   `selection` has.
    func single(
        _ entry: EmbeddedResources.Entry, in resource: HALResource, includePath: String?,
        for selection: Selection = .include
    ) throws(HalleyError) -> HALResource? {
        guard entry.resources.count <= 1 else {
            let rel = entry.rel
            let count = entry.resources.count
            let message: String
            switch selection {
            case .include:
                message = "to-one relation \(rel) embeds \(count) resources; include it as [\(rel)]"
            case .hop(let number):
                // A hop with a name follows `_links`, so the links of the relation say whether
                // the chain can pick one.
                message =
                    "hop \(number) (\(rel)) embeds \(count) resources and a chain follows one; "
                    + Self.namedPick(among: resource.links[rel], rel: rel, for: selection)
            case .action:
                message =
                    "relation \(rel) embeds \(count) resources and an action goes to one; "
                    + Self.namedPick(among: resource.links[rel], rel: rel, for: selection)
            }
            throw HalleyError(
                code: .ambiguousRelation, includePath: includePath, url: resource.baseURL, message: message)
        }
        return entry.resources.first
    }

    /// How a chain or an action picks one of `links` by HAL name, written as the call to make
    /// (with the first name there is); or, when no link has a name, what to do instead.
    private static func namedPick(among links: [Link], rel: LinkRelation, for selection: Selection) -> String {
        let name = links.lazy.compactMap(\.name).first.map(swiftLiteral)
        switch (selection, name) {
        case (.hop, let name?):
            return "pick it with .follow(\(swiftLiteral(rel.rawValue)), named: \(name))"
        case (.hop(let number), nil):
            return "no link has a name to pick it by: read them from the resource before hop \(number) "
                + "(.resource() on the chain without it)"
        case (_, let name?):
            return "pick it with send(_:rel:of:linkName:) and linkName: \(name)"
        case (_, nil):
            return "no link has a name to pick it by: send to one of their URLs with send(_:to:)"
        }
    }

    /// The absolute URL `link` points at: its template expanded with `local` variables over
    /// the call's, resolved against the resource's base, `queryItems` appended. Following a
    /// deprecated link emits ``HalleyEvent/deprecatedLinkFollowed(includePath:url:deprecation:)``.
    func url(
        of link: Link, in resource: HALResource, variables local: [String: TemplateValue] = [:],
        queryItems: [URLQueryItem] = [], includePath: String?
    ) throws(HalleyError) -> URL {
        try targets(in: resource, variables: local, queryItems: queryItems).url(of: link, includePath: includePath)
    }

    /// What ``url(of:in:variables:queryItems:includePath:)`` needs for every link of one
    /// resource, worked out once: a relation of 10,000 links resolves its base URL and layers
    /// its variables once, not 10,000 times.
    func targets(
        in resource: HALResource, variables local: [String: TemplateValue] = [:], queryItems: [URLQueryItem] = []
    ) -> Targets {
        targets(relativeTo: resource.baseLocation, variables: local, queryItems: queryItems)
    }

    /// ``targets(in:variables:queryItems:)`` for links read from a resource at `base`.
    func targets(
        relativeTo base: LazyURL?, variables local: [String: TemplateValue] = [:], queryItems: [URLQueryItem] = []
    ) -> Targets {
        Targets(
            base: base, origin: URLResolution.OriginPrefix(base),
            variables: local.isEmpty ? variables : variables.overlaid(with: local), queryItems: queryItems, emit: emit)
    }

    /// The absolute URL `link`, read from a resource at `base`, points at (see
    /// ``url(of:in:variables:queryItems:includePath:)``).
    func url(of link: Link, relativeTo base: URL?, includePath: String?) throws(HalleyError) -> URL {
        try targets(relativeTo: base.map(LazyURL.init)).location(of: link, includePath: includePath).url
    }

    /// Where the links of one resource point; see ``RelationResolver/targets(in:variables:queryItems:)``.
    struct Targets: Sendable {
        let base: LazyURL?
        /// `base`'s origin, found once for every link joined to it.
        let origin: URLResolution.OriginPrefix?
        let variables: [String: TemplateValue]
        let queryItems: [URLQueryItem]
        let emit: @Sendable (HalleyEvent) -> Void

        /// The absolute URL `link` points at (see ``RelationResolver/url(of:in:variables:queryItems:includePath:)``).
        func url(of link: Link, includePath: String?) throws(HalleyError) -> URL {
            try location(of: link, includePath: includePath).url
        }

        /// ``url(of:includePath:)`` as the engine carries it: a traversal fetches the URL
        /// without ever making a `URL` of it (``LazyURL``).
        func location(of link: Link, includePath: String?) throws(HalleyError) -> LazyURL {
            let followed = link.followed
            var location = try LinkTarget.location(
                href: followed.href, isTemplated: followed.isTemplated, base: base, variables: variables,
                includePath: includePath, origin: origin)
            if !queryItems.isEmpty, var components = URLComponents(url: location.url, resolvingAgainstBaseURL: false) {
                components.queryItems = RelationResolver.merging(components.queryItems ?? [], queryItems)
                if let url = components.url { location = LazyURL(url) }
            }
            if let deprecation = followed.deprecation {
                emit(.deprecatedLinkFollowed(includePath: includePath, url: location.url, deprecation: deprecation))
            }
            return location
        }
    }

    /// `added` appended to `existing`, as the original Halley does: an item whose name is
    /// already there joins its value to that item's with a comma (`fields=id` + `fields=url`
    /// → `fields=id,url`), keeping the order of first appearance.
    static func merging(_ existing: [URLQueryItem], _ added: [URLQueryItem]) -> [URLQueryItem] {
        var items = existing
        for item in added {
            if let index = items.firstIndex(where: { $0.name == item.name }) {
                let values = [items[index].value, item.value].compactMap { $0 }
                items[index].value = values.isEmpty ? nil : values.joined(separator: ",")
            } else {
                items.append(item)
            }
        }
        return items
    }

    /// `text` as a Swift string literal, for a message that shows the call to make.
    private static func swiftLiteral(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// The error for a relation a caller requires and the resource lacks, listing what it has
    /// (in `_links` and `_embedded`).
    static func missing(
        _ rel: LinkRelation, named name: String?, in resource: HALResource, includePath: String?, hop: Int? = nil
    ) -> HalleyError {
        var seen: Set<String> = []
        let rels = resource.links.rels + resource.embedded.rels + resource.embedded.values.map(\.rel)
        let available = rels.map(\.rawValue).filter { seen.insert($0).inserted }
        let what = "\(rel)\(name.map { "@\($0)" } ?? "")"
        return HalleyError(
            code: .missingRelation, includePath: includePath, url: resource.baseURL,
            message: (hop.map { "hop \($0) (\(what))" } ?? what) + " is not in the resource; available rels: "
                + (available.isEmpty ? "none" : available.joined(separator: ", ")))
    }
}
