import Foundation

/// Walks an ``IncludePlan`` from a resource: finds each relationship in `_embedded` or
/// `_links`, fetches what is missing, recurses into what arrives, and merges the results
/// into the parent.
///
/// Every relationship of a node runs in its own child task, and each recursion starts as
/// soon as its own resource has arrived, so a branch never waits for a sibling: a
/// traversal takes about (depth + 1) round trips when concurrency allows.
struct Traverser: Sendable {
    let context: TraversalContext

    /// What a relationship resolved to.
    private enum Outcome: Sendable {
        case one(JSONObject)
        case many([JSONObject])
        case missing
    }

    /// `resource`'s JSON with every relationship of `nodes` merged in.
    func merged(_ resource: HALResource, nodes: [IncludePlan.Node]) async throws -> JSONObject {
        guard !nodes.isEmpty else { return resource.json }
        // Embedded-only subtrees need no request, so no child tasks either.
        if !needsFetch(resource, nodes: nodes) { return try mergedLocally(resource, nodes: nodes) }
        var object = resource.json
        if nodes.count == 1 {
            let (outcome, embeddedRel) = try await relationship(nodes[0], of: resource)
            place(outcome, embeddedRel: embeddedRel, for: nodes[0], into: &object)
            return object
        }
        let outcomes = try await withThrowingTaskGroup(of: (Int, Outcome, LinkRelation?).self) { group in
            for (index, node) in nodes.enumerated() {
                group.addTask {
                    let (outcome, embeddedRel) = try await relationship(node, of: resource)
                    return (index, outcome, embeddedRel)
                }
            }
            var outcomes = [(Outcome, LinkRelation?)](repeating: (.missing, nil), count: nodes.count)
            for try await (index, outcome, embeddedRel) in group { outcomes[index] = (outcome, embeddedRel) }
            return outcomes
        }
        for (node, (outcome, embeddedRel)) in zip(nodes, outcomes) {
            place(outcome, embeddedRel: embeddedRel, for: node, into: &object)
        }
        return object
    }

    /// A collection's items as found: embedded, with the include plan already merged in, or
    /// linked and not fetched yet.
    enum CollectionItems: Sendable {
        case resources([JSONObject])
        case links([Link])
    }

    /// The items of a collection resource, each with `nodes` merged in: `_embedded[item]`,
    /// else `_links[item]` fetched, else (Spring Data REST) the only `_embedded` relation.
    func items(of collection: HALResource, nodes: [IncludePlan.Node], includePath: String?) async throws -> [JSONObject]
    {
        switch try await itemsOrLinks(of: collection, nodes: nodes, includePath: includePath) {
        case .resources(let items):
            return items
        case .links(let links):
            return try await fetchedAll(
                links, in: collection, nodes: nodes, includePath: includePath,
                variables: [:], queryItems: [])
        }
    }

    /// ``items(of:nodes:includePath:)`` that leaves linked items unfetched: a pager fetches
    /// them as its consumer reaches them, each in a call of its own.
    func itemsOrLinks(of collection: HALResource, nodes: [IncludePlan.Node], includePath: String?) async throws
        -> CollectionItems
    {
        let count = collectionSize(collection)
        guard count <= context.maxItemsPerPage else {
            throw HalleyError(
                code: .limitExceeded, includePath: includePath, url: collection.baseURL,
                message: "the collection page holds \(count) items; the limit is \(context.maxItemsPerPage)")
        }
        let key = LinkRelation(context.itemKey)
        if let entry = collection.embedded.entry(for: key) {
            return .resources(try await mergedAll(entry.resources, nodes: nodes))
        }
        if collection.links.contains(key),
            case .links(let links, _) = try context.resolver.find(
                key, named: nil, in: collection, includePath: includePath)
        {
            return .links(links)
        }
        switch collection.embedded.entries.count {
        case 0:
            if let problem = collection.embedded.problems.first, collection.embedded.problems.count == 1 {
                // The one embedded relation holds plain values (Spring's CollectionModel<String>):
                // they are data, not items that includes could be merged into.
                throw HalleyError(
                    code: .invalidDocument, includePath: includePath, url: collection.baseURL,
                    message: "the collection's items are not resources: \(problem.message) at \(problem.path)",
                    underlying: problem)
            }
            return .resources([])
        case 1:
            return .resources(try await mergedAll(collection.embedded.entries[0].resources, nodes: nodes))
        default:
            throw HalleyError(
                code: .missingRelation, includePath: includePath, url: collection.baseURL,
                message: "the collection has no \"\(key)\" items and several embedded relations ("
                    + collection.embedded.rels.map(\.rawValue).joined(separator: ", ") + ")")
        }
    }

    /// How many items `items(of:)` would produce, without producing them.
    private func collectionSize(_ collection: HALResource) -> Int {
        let key = LinkRelation(context.itemKey)
        if let entry = collection.embedded.entry(for: key) { return entry.resources.count }
        if let count = collection.links.linkCount(for: key) { return count }
        return collection.embedded.entries.count == 1 ? collection.embedded.entries[0].resources.count : 0
    }

    // MARK: One relationship

    private func relationship(_ node: IncludePlan.Node, of resource: HALResource) async throws -> (
        Outcome, LinkRelation?
    ) {
        do {
            return try await resolve(node, of: resource)
        } catch let error as HalleyError where context.collectsFailures {
            context.record(error)
            return (.missing, nil)
        }
    }

    /// Where a relationship's data comes from (see ``RelationResolver/find(_:named:in:includePath:)``).
    private func source(of node: IncludePlan.Node, in resource: HALResource) throws(HalleyError)
        -> RelationResolver.Found
    {
        try context.resolver.find(node.segment.rel, named: node.segment.linkName, in: resource, includePath: node.path)
    }

    private func resolve(_ node: IncludePlan.Node, of resource: HALResource) async throws -> (Outcome, LinkRelation?) {
        let rel = node.segment.rel
        let resolver = context.resolver
        let links: [Link]
        let isArray: Bool
        switch try source(of: node, in: resource) {
        case .embedded(let entry):
            context.emit(.embeddedUsed(includePath: node.path, rel: rel, count: entry.resources.count))
            return (try await embedded(entry, node: node, resource: resource), entry.rel)
        case .missing:
            context.emit(.relationMissing(includePath: node.path, rel: rel, url: resource.baseURL))
            return (.missing, nil)
        case .links(let found, let foundArray):
            (links, isArray) = (found, foundArray)
        }

        if !node.segment.isToMany {
            guard let link = try resolver.single(links, rel: rel, in: resource, includePath: node.path) else {
                context.emit(.relationMissing(includePath: node.path, rel: rel, url: resource.baseURL))
                return (.missing, nil)
            }
            let url = try resolver.url(
                of: link, in: resource, variables: node.variables, queryItems: node.queryItems,
                includePath: node.path)
            let document = try await context.document(at: url, includePath: node.path)
            return (.one(try await merged(document, nodes: node.children)), nil)
        }

        if isArray || node.segment.linkName != nil {
            let items = try await fetchedAll(
                links, in: resource, nodes: node.children, includePath: node.path,
                variables: node.variables, queryItems: node.queryItems)
            return (.many(items), nil)
        }
        // One link to a to-many relation: it points at a collection resource.
        guard let link = links.first else { return (.many([]), nil) }
        let url = try resolver.url(
            of: link, in: resource, variables: node.variables, queryItems: node.queryItems,
            includePath: node.path)
        let collection = try await context.document(at: url, includePath: node.path)
        return (.many(try await items(of: collection, nodes: node.children, includePath: node.path)), nil)
    }

    private func embedded(_ entry: EmbeddedResources.Entry, node: IncludePlan.Node, resource: HALResource) async throws
        -> Outcome
    {
        if node.segment.isToMany {
            // A single embedded object with its own items is a collection; otherwise it is one item.
            if !entry.isArray, let single = entry.resources.first, isCollection(single) {
                return .many(try await items(of: single, nodes: node.children, includePath: node.path))
            }
            return .many(try await mergedAll(entry.resources, nodes: node.children))
        }
        guard let first = try context.resolver.single(entry, in: resource, includePath: node.path) else {
            return .missing
        }
        return .one(try await merged(first, nodes: node.children))
    }

    // MARK: Without suspending

    /// Whether merging `nodes` into `resource` needs any request. A relationship whose source
    /// cannot be decided without an error counts as needing one, so the async path reports it.
    private func needsFetch(_ resource: HALResource, nodes: [IncludePlan.Node]) -> Bool {
        for node in nodes {
            guard let source = try? source(of: node, in: resource) else { return true }
            switch source {
            case .missing:
                continue
            case .links:
                return true
            case .embedded(let entry):
                if node.segment.isToMany, !entry.isArray, let single = entry.resources.first, isCollection(single) {
                    return true
                }
                if node.children.isEmpty { continue }
                if entry.resources.contains(where: { needsFetch($0, nodes: node.children) }) { return true }
            }
        }
        return false
    }

    /// ``merged(_:nodes:)`` for a subtree that ``needsFetch(_:nodes:)`` found all embedded.
    private func mergedLocally(_ resource: HALResource, nodes: [IncludePlan.Node]) throws -> JSONObject {
        var object = resource.json
        for node in nodes {
            let outcome: Outcome
            var embeddedRel: LinkRelation?
            do {
                switch try source(of: node, in: resource) {
                case .embedded(let entry):
                    context.emit(
                        .embeddedUsed(includePath: node.path, rel: node.segment.rel, count: entry.resources.count))
                    embeddedRel = entry.rel
                    if node.segment.isToMany {
                        outcome = .many(try entry.resources.map { try mergedLocally($0, nodes: node.children) })
                    } else {
                        guard let first = try context.resolver.single(entry, in: resource, includePath: node.path)
                        else {
                            outcome = .missing
                            break
                        }
                        outcome = .one(try mergedLocally(first, nodes: node.children))
                    }
                case .missing:
                    context.emit(.relationMissing(includePath: node.path, rel: node.segment.rel, url: resource.baseURL))
                    outcome = .missing
                case .links:
                    // Unreachable: needsFetch(_:nodes:) walked the same sources and found no link.
                    outcome = .missing
                }
            } catch let error as HalleyError where context.collectsFailures {
                context.record(error)
                outcome = .missing
                embeddedRel = nil
            }
            place(outcome, embeddedRel: embeddedRel, for: node, into: &object)
        }
        return object
    }

    private func isCollection(_ resource: HALResource) -> Bool {
        let key = LinkRelation(context.itemKey)
        return resource.embedded.entry(for: key) != nil || resource.links.contains(key)
    }

    // MARK: Fan-out

    /// Embedded resources with `nodes` merged into each, in order.
    private func mergedAll(_ resources: [HALResource], nodes: [IncludePlan.Node]) async throws -> [JSONObject] {
        guard !nodes.isEmpty else { return resources.map(\.json) }
        return try await orderedMap(resources) { try await merged($0, nodes: nodes) }.compactMap { $0 }
    }

    /// Each link fetched and merged, in link order. In partial mode a failed item is
    /// recorded and left out.
    private func fetchedAll(
        _ links: [Link], in resource: HALResource, nodes: [IncludePlan.Node], includePath: String?,
        variables: [String: TemplateValue], queryItems: [URLQueryItem]
    ) async throws -> [JSONObject] {
        try checkRequestBudget(
            links, in: resource, includePath: includePath, variables: variables, queryItems: queryItems)
        let context = self.context
        context.table.reserve(min(links.count, context.table.remainingRequests))
        let targets = context.resolver.targets(in: resource, variables: variables, queryItems: queryItems)
        let results = try await orderedMap(links) { link -> JSONObject? in
            do {
                let url = try targets.url(of: link, includePath: includePath)
                let document = try await context.document(at: url, includePath: includePath)
                // A leaf needs nothing merged: skip the call (and its frame) for each of them.
                return nodes.isEmpty ? document.json : try await merged(document, nodes: nodes)
            } catch let error as HalleyError where context.collectsFailures {
                context.record(error)
                return nil
            }
        }
        return results.compactMap { $0 ?? nil }
    }

    /// Fails before anything is built for `links` when they point at more new URLs than the
    /// call may still request (``CallOptions/maxRequests``).
    ///
    /// A relation of 400,000 links would otherwise become 400,000 tasks and request values
    /// before the fetch table refused the 1,001st, and which 1,000 got through would depend
    /// on scheduling. This walks the links only while the count of distinct new URLs stays
    /// within the budget, so it resolves at most one link more than the call could fetch.
    /// Links that do not resolve are skipped here; the fan-out reports them.
    private func checkRequestBudget(
        _ links: [Link], in resource: HALResource, includePath: String?,
        variables: [String: TemplateValue], queryItems: [URLQueryItem]
    ) throws(HalleyError) {
        let remaining = context.table.remainingRequests
        guard links.count > remaining else { return }
        var fresh = Set<String>()
        let targets = context.resolver.targets(in: resource, variables: variables, queryItems: queryItems)
        for link in links {
            guard let url = try? targets.url(of: link, includePath: includePath) else { continue }
            let key = url.absoluteString
            guard !context.table.isClaimed(key), fresh.insert(key).inserted, fresh.count > remaining else { continue }
            throw HalleyError(
                code: .limitExceeded, includePath: includePath, url: resource.baseURL,
                message: "the relation has \(links.count) links, more than the \(remaining) request(s) "
                    + "the call may still send (maxRequests \(context.table.maxRequests)); nothing of it was fetched")
        }
    }

    /// `transform` applied to every element concurrently, results in input order.
    ///
    /// At most ``TraversalContext/fanOutWindow`` elements are in progress at once, each by one
    /// of as many workers that take the next element as soon as their last is done: a relation
    /// of 100,000 links then costs a few hundred tasks, not 100,000, and tasks past the window
    /// would only queue for the concurrency limit anyway. As with a task per element, no
    /// element waits for a sibling: a worker moves on only when its element is done.
    private func orderedMap<Element: Sendable, Result: Sendable>(
        _ elements: [Element], _ transform: @escaping @Sendable (Element) async throws -> Result
    ) async throws -> [Result?] {
        if elements.count == 1 { return [try await transform(elements[0])] }
        let workers = min(context.fanOutWindow, elements.count)
        let next = LockedValue(0)
        return try await withThrowingTaskGroup(of: [(Int, Result)].self) { group in
            for _ in 0..<workers {
                group.addTask {
                    var done: [(Int, Result)] = []
                    while true {
                        // A failed sibling cancels the group: stop taking elements at once.
                        try Task.checkCancellation()
                        let index = next.withLock { next -> Int in
                            defer { next += 1 }
                            return next
                        }
                        guard index < elements.count else { return done }
                        done.append((index, try await transform(elements[index])))
                    }
                }
            }
            var results = [Result?](repeating: nil, count: elements.count)
            for try await done in group {
                for (index, result) in done { results[index] = result }
            }
            return results
        }
    }

    // MARK: Merge

    /// Puts a relationship's result into its parent, under the rel as the include wrote it.
    ///
    /// An embedded relation that was used moves out of `_embedded` (which disappears when it
    /// empties), so the data is not written twice. If the key is already an attribute, the
    /// attribute stays and the result goes to `_embedded[key]`.
    private func place(
        _ outcome: Outcome, embeddedRel: LinkRelation?, for node: IncludePlan.Node, into object: inout JSONObject
    ) {
        let value: JSONValue
        switch outcome {
        case .missing: return
        case .one(let resource): value = .object(resource)
        case .many(let resources): value = .array(resources.map { .object($0) })
        }
        var embedded = object["_embedded"]?.objectValue
        if let embeddedRel { embedded?.removeValue(forKey: embeddedRel.rawValue) }
        let key = node.resultKey
        if key == "_links" || key == "_embedded" || object[key] != nil {
            context.emit(.resultKeyTaken(includePath: node.path, key: key))
            var target = embedded ?? JSONObject()
            target[key] = value
            embedded = target
        } else {
            object[key] = value
        }
        if let embedded {
            object["_embedded"] = embedded.isEmpty ? nil : .object(embedded)
        }
    }
}
