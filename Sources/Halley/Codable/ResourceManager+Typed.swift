import Foundation

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
    public func nextPage<Item: Decodable>(of page: PaginationPage<Item>) async throws -> PaginationPage<Item>? {
        try await adjacentPage(to: page, following: .next)
    }

    /// Fetches the page before `page` with the same includes; `nil` on the first page.
    public func previousPage<Item: Decodable>(of page: PaginationPage<Item>) async throws -> PaginationPage<Item>? {
        try await adjacentPage(to: page, following: .prev)
    }

    private func adjacentPage<Item: Decodable>(to page: PaginationPage<Item>, following rel: LinkRelation) async throws
        -> PaginationPage<Item>?
    {
        guard let link = page.links.link(for: rel) else { return nil }
        var request = page.request
        let url = try LinkTarget.url(
            of: link, base: page.url, variables: Call.variables(of: self, options: request.callOptions))
        request.start(at: url)
        return try await requestPage(request)
    }

    // MARK: The typed call

    /// The one typed call: `request`'s includes, options and decoder, starting at its URL
    /// (or at `start`, the end of a follow chain), decoded once as `Item`.
    func item<Item: Decodable>(_ request: HalleyRequest<Item>, from start: CallStart?) async throws -> Item {
        let (call, plan) = try prepare(request, start: start)
        let (document, url) = try await call.merged(plan)
        return try decode(Item.self, from: document, decoder: request.decoder, plan: plan, url: url)
    }

    /// ``item(_:from:)`` for a collection: one page, its items decoded as `Item`.
    func page<Item: Decodable>(_ request: HalleyRequest<Item>, from start: CallStart?) async throws
        -> PaginationPage<Item>
    {
        let (call, plan) = try prepare(request, start: start)
        let collection = try await call.collection(plan)
        let items = try decode(
            [Item].self, from: .array(collection.items), decoder: request.decoder, plan: plan,
            url: collection.url)
        var pageRequest = request
        if case .chain = start {
            // Later pages start from where the chain led, not from the chain's entry.
            pageRequest.start(at: collection.url)
        }
        return PaginationPage(
            items: items, metadata: PageMetadata(collection.metadata[request.pageMetadataKey]?.objectValue),
            links: collection.links, url: collection.url, request: pageRequest)
    }

    /// The typed request as a call: its start (`start`, else its URL as it is or as a
    /// template), its options, and its include plan.
    private func prepare<Item>(_ request: HalleyRequest<Item>, start: CallStart?) throws(HalleyError)
        -> (Call, IncludePlan)
    {
        let plan: IncludePlan
        do {
            plan = try request.includePlan()
        } catch {
            throw HalleyError(error)
        }
        let start = start ?? request.exactURL.map { .url($0) } ?? .template(request.url)
        return (try Call(self, at: start, options: request.callOptions), plan)
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
