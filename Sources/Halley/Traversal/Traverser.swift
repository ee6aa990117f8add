import Foundation
import HalleyHAL

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
    ///
    /// - Parameter isLocal: Whether the subtree is known to need no request (so its caller
    ///   has decided it already); decided here when `nil`.
    func merged(_ resource: HALResource, nodes: [IncludePlan.Node], isLocal: Bool? = nil) async throws -> JSONObject {
        guard !nodes.isEmpty else { return resource.json }
        // A subtree that needs no request is merged in order, without child tasks.
        let isLocal = isLocal ?? !needsFetch(resource, nodes: nodes)
        var object = resource.json
        if isLocal || nodes.count == 1 {
            for node in nodes {
                let (outcome, embeddedRel) = try await relationship(node, of: resource, isLocal: isLocal)
                place(outcome, embeddedRel: embeddedRel, for: node, into: &object)
            }
            return object
        }
        let outcomes = try await withThrowingTaskGroup(of: (Int, Outcome, LinkRelation?).self) { group in
            for (index, node) in nodes.enumerated() {
                group.addTask {
                    let (outcome, embeddedRel) = try await relationship(node, of: resource, isLocal: false)
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
    enum FoundItems: Sendable {
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
        -> FoundItems
    {
        let key = context.resolver.itemKey
        let count = CollectionItems.count(in: collection, key: key)
        guard count <= context.maxItemsPerPage else {
            throw HalleyError(
                code: .limitExceeded, includePath: includePath, url: collection.baseURL,
                message: "the collection page holds \(count) items; the limit is \(context.maxItemsPerPage)")
        }
        switch CollectionItems.place(in: collection, key: key) {
        case .embeddedByKey:
            return .resources(try await mergedAll(collection.embedded.resources(for: key), nodes: nodes))
        case .linked:
            guard
                case .links(let links, _) = try context.resolver.find(
                    key, named: nil, in: collection, includePath: includePath)
            else { return .resources([]) }
            return .links(links)
        case .onlyEmbedded:
            return .resources(try await mergedAll(collection.embedded.entries[0].resources, nodes: nodes))
        case .none:
            if let problem = collection.embedded.problems.first, collection.embedded.problems.count == 1 {
                // The one embedded relation holds plain values (Spring's CollectionModel<String>):
                // they are data, not items that includes could be merged into.
                throw HalleyError(
                    code: .invalidDocument, includePath: includePath, url: collection.baseURL,
                    message: "the collection's items are not resources: \(problem.message) at \(problem.path)",
                    underlying: problem)
            }
            return .resources([])
        case .ambiguous:
            throw HalleyError(
                code: .missingRelation, includePath: includePath, url: collection.baseURL,
                message: "the collection has no \"\(key)\" items and several embedded relations ("
                    + collection.embedded.rels.map(\.rawValue).joined(separator: ", ") + ")")
        }
    }

    // MARK: One relationship

    private func relationship(_ node: IncludePlan.Node, of resource: HALResource, isLocal: Bool) async throws
        -> (Outcome, LinkRelation?)
    {
        do {
            return try await resolve(node, of: resource, isLocal: isLocal)
        } catch let error as HalleyError where context.collectsFailures {
            context.record(error)
            return (.missing, nil)
        }
    }

    /// Follows the relation step of `node` (see ``RelationResolver/step(for:in:)``).
    private func resolve(_ node: IncludePlan.Node, of resource: HALResource, isLocal: Bool) async throws
        -> (Outcome, LinkRelation?)
    {
        let resolver = context.resolver
        switch try resolver.step(for: node, in: resource) {
        case .one(.missing), .many(.missing):
            // Strict, the error says it all; lenient, the event is the only trace of it.
            if context.strictIncludes {
                throw RelationResolver.missing(
                    node.segment.rel, named: node.segment.linkName, in: resource, includePath: node.path)
            }
            context.emit(.relationMissing(includePath: node.path, rel: node.segment.rel, url: resource.baseURL))
            return (.missing, nil)
        case .one(.embedded(let first, let entry)):
            emitEmbedded(entry, for: node)
            guard let first else { return (.missing, nil) }
            return (.one(try await merged(first, nodes: node.children, isLocal: isLocal ? true : nil)), entry.rel)
        case .many(.embedded(let entry)):
            emitEmbedded(entry, for: node)
            guard isLocal else { return (.many(try await mergedAll(entry.resources, nodes: node.children)), entry.rel) }
            var items: [JSONObject] = []
            items.reserveCapacity(entry.resources.count)
            for item in entry.resources { items.append(try await merged(item, nodes: node.children, isLocal: true)) }
            return (.many(items), entry.rel)
        case .many(.embeddedCollection(let collection, let entry)):
            emitEmbedded(entry, for: node)
            return (.many(try await items(of: collection, nodes: node.children, includePath: node.path)), entry.rel)
        case .one(.link(let link)):
            let url = try resolver.url(
                of: link, in: resource, variables: node.variables, queryItems: node.queryItems,
                includePath: node.path)
            let document = try await context.document(at: url, includePath: node.path)
            return (.one(try await merged(document, nodes: node.children)), nil)
        case .many(.links(let links)):
            let items = try await fetchedAll(
                links, in: resource, nodes: node.children, includePath: node.path,
                variables: node.variables, queryItems: node.queryItems)
            return (.many(items), nil)
        case .many(.collection(let link)):
            let url = try resolver.url(
                of: link, in: resource, variables: node.variables, queryItems: node.queryItems,
                includePath: node.path)
            let collection = try await context.document(at: url, includePath: node.path)
            return (.many(try await items(of: collection, nodes: node.children, includePath: node.path)), nil)
        }
    }

    private func emitEmbedded(_ entry: EmbeddedResources.Entry, for node: IncludePlan.Node) {
        context.emit(.embeddedUsed(includePath: node.path, rel: node.segment.rel, count: entry.resources.count))
    }

    /// Whether merging `nodes` into `resource` needs any request. A relationship whose step
    /// cannot be decided without an error counts as needing one, so that the concurrent path
    /// reports it.
    private func needsFetch(_ resource: HALResource, nodes: [IncludePlan.Node]) -> Bool {
        for node in nodes {
            guard let step = try? context.resolver.step(for: node, in: resource) else { return true }
            switch step {
            case .one(.missing), .many(.missing), .one(.embedded(nil, _)):
                continue
            case .one(.embedded(let first?, _)):
                if needsFetch(first, nodes: node.children) { return true }
            case .many(.embedded(let entry)):
                if node.children.isEmpty { continue }
                if entry.resources.contains(where: { needsFetch($0, nodes: node.children) }) { return true }
            case .many(.embeddedCollection), .one(.link), .many(.links), .many(.collection):
                return true
            }
        }
        return false
    }

    // MARK: Fan-out

    /// Embedded resources with `nodes` merged into each, in order.
    private func mergedAll(_ resources: [HALResource], nodes: [IncludePlan.Node]) async throws -> [JSONObject] {
        guard !nodes.isEmpty else { return resources.map(\.json) }
        let results = try await orderedMap(
            resources, ClosureTransform { try await merged($0, nodes: nodes) }, window: context.fanOutWindow)
        return results.compactMap { $0 }
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
        // Fresh stored state answers at once; only the rest takes the fetch machinery.
        var stored: [HALResource?] = []
        if context.readsStoreDirectly {
            stored = context.storedDocuments(at: links.map { try? targets.url(of: $0, includePath: includePath) })
            if nodes.isEmpty, stored.allSatisfy({ $0 != nil }) {
                try Task.checkCancellation()
                return stored.compactMap { $0?.json }
            }
        }
        let fetch = LinkFetch(
            traverser: self, links: links, stored: stored, targets: targets, nodes: nodes, includePath: includePath)
        // A branch's workers spend time in its children without a slot; a leaf is one request.
        let window = nodes.isEmpty ? context.leafWindow : context.fanOutWindow
        let results = try await orderedMap(Array(links.indices), fetch, window: window)
        return results.compactMap { $0 ?? nil }
    }

    /// One link of ``fetchedAll(_:in:nodes:includePath:variables:queryItems:)`` fetched and
    /// merged: `nil` for a failure partial mode records. A type rather than a closure, so that
    /// the fan-out's workers call it directly (a closure call is one more async frame per link).
    private struct LinkFetch: OrderedTransform {
        let traverser: Traverser
        let links: [Link]
        /// What fresh stored state answered, by index (empty without a store).
        let stored: [HALResource?]
        let targets: RelationResolver.Targets
        let nodes: [IncludePlan.Node]
        let includePath: String?

        @inline(__always)
        func callAsFunction(_ index: Int) async throws -> JSONObject? {
            let context = traverser.context
            do {
                let document: HALResource
                if index < stored.count, let answered = stored[index] {
                    document = answered
                } else {
                    let url = try targets.location(of: links[index], includePath: includePath)
                    document = try await context.inlinedDocument(at: url, includePath: includePath)
                }
                // A leaf needs nothing merged: skip the call (and its frame) for each of them.
                return nodes.isEmpty ? document.json : try await traverser.merged(document, nodes: nodes)
            } catch let error as HalleyError where context.collectsFailures {
                context.record(error)
                return nil
            }
        }
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
            guard let url = try? targets.location(of: link, includePath: includePath) else { continue }
            let key = url.text
            guard !context.table.isClaimed(key), fresh.insert(key).inserted, fresh.count > remaining else { continue }
            throw HalleyError(
                code: .limitExceeded, includePath: includePath, url: resource.baseURL,
                message: "the relation has \(links.count) links, more than the \(remaining) request(s) "
                    + "the call may still send (maxRequests \(context.table.maxRequests)); nothing of it was fetched")
        }
    }

    /// `transform` applied to every element concurrently, results in input order.
    ///
    /// At most `window` elements are in progress at once, each by one of as many workers that
    /// take the next element as soon as their last is done: a relation of 100,000 links then
    /// costs a few hundred tasks at most, not 100,000, and tasks past the window would only
    /// queue for the concurrency limit anyway. As with a task per element, no element waits
    /// for a sibling: a worker moves on only when its element is done.
    @inline(__always)
    private func orderedMap<Transform: OrderedTransform>(
        _ elements: [Transform.Element], _ transform: Transform, window: Int
    ) async throws -> [Transform.Output?] {
        typealias Result = Transform.Output
        if elements.count == 1 { return [try await transform(elements[0])] }
        let workers = min(window, elements.count)
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

/// What ``Traverser``'s ordered fan-out applies to each element: a type, not a closure, so
/// that a worker calls it directly and the call can be inlined.
private protocol OrderedTransform: Sendable {
    associatedtype Element: Sendable
    associatedtype Output: Sendable
    func callAsFunction(_ element: Element) async throws -> Output
}

/// A closure as an ``OrderedTransform``, where one more frame per element does not matter.
private struct ClosureTransform<Element: Sendable, Output: Sendable>: OrderedTransform {
    let body: @Sendable (Element) async throws -> Output

    func callAsFunction(_ element: Element) async throws -> Output { try await body(element) }
}
