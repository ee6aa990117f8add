// swift-format-ignore-file
// README.md's "Untyped traversal", "Request policy" and "Actions" blocks, verbatim between
// `// snippet` and `// end snippet` (SnippetSyncTests holds them to the README). The
// parameters and the lines after each block are scaffolding; ReadmeSnippetTests runs the
// functions against SampleAPI.
import Foundation
import Halley

@MainActor func readmeUntypedTraversal(manager: ResourceManager, url: URL) async throws -> (JSONValue, TraversalResult, [JSONValue], ResourceCollection, HALResource) {
    // snippet README.md "Untyped traversal"
    var options = CallOptions()
    options.variables = ["page": 0]                  // for templated links and a templated root
    options.headers = ["Authorization": "Bearer …"]  // root origin only, see Credentials
    options.maxConcurrency = 16                      // default 8
    options.preference = .links                      // default .embedded
    options.observer = { event in print(event) }     // requests, embedded reuse, deprecations

    let merged = try await manager.resource(from: url, includes: ["[ex:contacts].website"], options: options)
    let partial = try await manager.traverse(url, includes: ["[contacts].website"])  // .document + .failures
    let items = try await manager.resourceCollection(from: url, includes: ["website"])
    let page = try await manager.resourceCollectionWithMetadata(from: url)           // .items, .metadata, .links
    let document = try await manager.document(at: url)                               // one HALResource
    // end snippet
    return (merged, partial, items, page, document)
}

func readmeRequestPolicy(tokens: TokenStore) -> (ResourceManager.Configuration, CallOptions) {
    // snippet README.md "Request policy"
    var configuration = ResourceManager.Configuration()
    configuration.headers = ["User-Agent": "MyApp/1.0"]
    configuration.headerProvider = { ["Authorization": "Bearer \(try await tokens.current())"] }
    configuration.refreshCredentials = { try await tokens.refresh() }   // on 401, once
    configuration.configureRequest = { request in request.headers["X-Trace"] = UUID().uuidString }
    configuration.retryPolicy = .standard            // 3 attempts; default .none
    configuration.requestTimeout = .seconds(10)      // per attempt, whatever the requester
    configuration.validator = { response, document in /* throw to reject a 2xx */ }
    configuration.fallback = { request, error in diskCopy(of: request.url) }
    configuration.cache = ResponseCache(maximumBytes: 20_000_000)   // off by default

    var options = CallOptions()
    options.deadline = .seconds(5)                   // whole-call time budget
    // end snippet
    return (configuration, options)
}

@MainActor func readmeActions(manager: ResourceManager, ordersURL: URL, basketURL: URL, orderURL: URL, payment: Payment) async throws -> (ActionResponse, Order) {
    // snippet README.md "Actions"
    let created = try await manager.send(.post, to: ordersURL, body: .json(["item": "book"]))
    let (status, location) = (created.status, created.location)  // 201, https://api.example.com/orders/42
    let resource = try created.resource()                         // the body as a HALResource; nil if empty
    let placed = try created.decode(Order.self)                   // or any Decodable

    let basket = try await manager.document(at: basketURL)
    _ = try await manager.send(.post, rel: "ea:checkout", of: basket, body: try .encodable(payment))
    let order = try await manager.send(.put, to: orderURL, body: .text("…"), decoding: Order.self)
    // end snippet
    _ = (status, location, resource, placed)
    return (created, order)
}
