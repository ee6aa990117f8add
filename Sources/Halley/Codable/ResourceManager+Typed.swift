import Foundation
import HalleyHAL

extension ResourceManager {
    /// Fetches a resource with the request's includes and decodes it once into `Item`.
    ///
    /// - Throws: ``HalleyError``; decoding failures have code ``HalleyError/Code/decoding``
    ///   and name the JSON path and the include path of the failing field.
    public func request<Item: Decodable>(_ request: HalleyRequest<Item>) async throws -> Item {
        try await item(request, from: nil)
    }

    /// Fetches a collection and decodes its items, each with the request's includes.
    public func requestCollection<Item: Decodable>(_ request: HalleyRequest<Item>) async throws -> [Item] {
        try await requestPage(request).items
    }

    /// Fetches one page of a collection: items, metadata and links.
    public func requestPage<Item: Decodable>(_ request: HalleyRequest<Item>) async throws -> PaginationPage<Item> {
        try await page(request, from: nil)
    }

    /// Fetches the page after `page` with the same includes; `nil` on the last page.
    ///
    /// Credential headers go to the origin of the first page (and the allowed origins), not
    /// to wherever the `next` link points.
    public func nextPage<Item: Decodable>(of page: PaginationPage<Item>) async throws -> PaginationPage<Item>? {
        try await adjacentPage(to: page, following: .next)
    }

    /// Fetches the page before `page` with the same includes; `nil` on the first page.
    public func previousPage<Item: Decodable>(of page: PaginationPage<Item>) async throws -> PaginationPage<Item>? {
        try await adjacentPage(to: page, following: .prev)
    }

    /// The page `rel` (`next`, `prev`) of `page` leads to, with the same includes: its link
    /// resolved by the new page's call, which trusts the first page's origin as `page` did.
    private func adjacentPage<Item: Decodable>(to page: PaginationPage<Item>, following rel: LinkRelation) async throws
        -> PaginationPage<Item>?
    {
        let loader = try pageLoader(page.request)
        guard let call = try loader.call(following: rel, in: page.links, of: page.url, trusting: page.trustRoot)
        else { return nil }
        var next = page.request
        next.start(at: call.rootURL)
        return try decoded(try await loader.load(call), request: next)
    }

    // MARK: The typed call

    /// The one typed call: `request`'s includes, options and decoder, starting at its URL
    /// (or at `start`, the end of a follow chain), decoded once as `Item`.
    func item<Item: Decodable>(_ request: HalleyRequest<Item>, from start: CallStart?) async throws -> Item {
        let plan = try includePlan(of: request)
        let (document, url) = try await Call(self, at: start ?? self.start(of: request), options: request.callOptions)
            .merged(plan)
        return try decode(Item.self, from: document, decoder: request.decoder, plan: plan, url: url)
    }

    /// ``item(_:from:)`` for a collection: one page, its items decoded as `Item`.
    func page<Item: Decodable>(_ request: HalleyRequest<Item>, from start: CallStart?) async throws
        -> PaginationPage<Item>
    {
        let loader = try pageLoader(request)
        let page = try await loader.load(try loader.call(at: start ?? self.start(of: request)))
        var pageRequest = request
        if case .chain = start {
            // Later pages start from where the chain led, not from the chain's entry.
            pageRequest.start(at: page.url)
        }
        return try decoded(page, request: pageRequest)
    }

    /// The loader of `request`'s pages: a page is handed over whole, its linked items fetched
    /// in its own call.
    private func pageLoader<Item>(_ request: HalleyRequest<Item>) throws(HalleyError) -> PageLoader {
        PageLoader(
            manager: self, plan: try includePlan(of: request), options: request.callOptions, fetchesLinkedItems: true)
    }

    /// A loaded page with its items decoded as `Item`.
    private func decoded<Item: Decodable>(_ page: Page, request: HalleyRequest<Item>) throws(HalleyError)
        -> PaginationPage<Item>
    {
        let items = try decode(
            [Item].self, from: .array(page.items), decoder: request.decoder, plan: page.plan, url: page.url)
        return PaginationPage(
            items: items, metadata: page.metadata(at: request.pageMetadataKey), links: page.links, url: page.url,
            request: request, document: page.document, trustRoot: page.trustRoot)
    }

    /// Where a typed request starts: its `URL` as it is, else its text as a template.
    private func start<Item>(of request: HalleyRequest<Item>) -> CallStart {
        request.exactURL.map { .url($0) } ?? .template(request.url)
    }

    private func includePlan<Item>(of request: HalleyRequest<Item>) throws(HalleyError) -> IncludePlan {
        do {
            return try request.includePlan()
        } catch {
            throw HalleyError(error)
        }
    }

    /// Decodes the merged tree as `type` with `decoder` (the manager's when `nil`), reading the
    /// tree directly rather than its text (see ``JSONValueDecoder``).
    func decode<T: Decodable>(
        _ type: T.Type, from value: JSONValue, decoder: JSONDecoder?, plan: IncludePlan, url: URL?
    ) throws(HalleyError) -> T {
        let treeDecoder = JSONValueDecoder(decoder ?? configuration.decoder)
        return try DecodingFailure.reporting(type, plan: plan, url: url) {
            try treeDecoder.decode(type, from: value)
        }
    }
}

/// Turns a `DecodingError` into a JSON path and the include path it falls under.
enum DecodingFailure {
    /// Decodes `data` as `type` with `decoder`; failures as in ``reporting(_:plan:url:_:)``.
    static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, decoder: JSONDecoder, plan: IncludePlan, url: URL?
    ) throws(HalleyError) -> T {
        try reporting(type, plan: plan, url: url) { try decoder.decode(type, from: data) }
    }

    /// Runs `decode`; a failure is a ``HalleyError/Code/decoding`` error naming the JSON path
    /// and, through `plan`, the include path of the failing field. The one place a decoding
    /// failure becomes a ``HalleyError``.
    static func reporting<T>(_ type: T.Type, plan: IncludePlan, url: URL?, _ decode: () throws -> T)
        throws(HalleyError) -> T
    {
        do {
            return try decode()
        } catch let error as DecodingError {
            let (path, includePath) = locate(error, plan: plan)
            throw HalleyError(
                code: .decoding, includePath: includePath, url: url,
                message: "cannot decode \(T.self) at \(path): \(reason(error))", underlying: error)
        } catch {
            throw HalleyError(
                code: .decoding, url: url, message: "cannot decode \(T.self): \(error)", underlying: error)
        }
    }

    static func locate(_ error: DecodingError, plan: IncludePlan) -> (jsonPath: String, includePath: String?) {
        var codingPath: [any CodingKey]
        switch error {
        case .keyNotFound(let key, let context): codingPath = context.codingPath + [key]
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            codingPath = context.codingPath
        @unknown default: codingPath = []
        }
        var components: [JSONPath.Component] = []
        var nodes = plan.children
        var includePath: String?
        var matching = true
        for key in codingPath {
            if let index = key.intValue {
                components.append(.index(index))
                continue
            }
            components.append(.key(key.stringValue))
            if matching, let node = nodes.first(where: { $0.resultKey == key.stringValue }) {
                includePath = node.path
                nodes = node.children
            } else {
                matching = false
            }
        }
        return (JSONPath.render(components), includePath)
    }

    static func reason(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): return "required key \"\(key.stringValue)\" is missing"
        case .typeMismatch(let type, let context): return "expected \(type): \(context.debugDescription)"
        case .valueNotFound(let type, _): return "expected \(type), found null"
        case .dataCorrupted(let context): return context.debugDescription
        @unknown default: return "\(error)"
        }
    }
}
