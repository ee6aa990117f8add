import Foundation
import HalleyHAL
import HalleyTransport

extension ResourceManager {
    /// Sends an action to a URL with the manager's policy: headers, credentials, retries
    /// (idempotent methods only unless the policy opts in), timeouts, validation, fallback.
    ///
    /// ```swift
    /// let created = try await manager.send(.post, to: ordersURL, body: .json(["item": "book"]))
    /// created.location   // https://api.example.com/orders/42
    /// ```
    ///
    /// A successful unsafe method invalidates the URL (and its `Location`, `Content-Location` and
    /// `Link: <…>; rel="invalidates"` targets on trusted origins) in the cache and the
    /// ``ResourceStore``, which also keeps a body sent back with a `Content-Location` equal to
    /// the URL as the resource's new state.
    ///
    /// - Throws: ``HalleyError`` (`.http` with the status and problem details, `.transport`,
    ///   `.timeout`, `.validation`, `.unsupportedScheme`).
    public func send(
        _ method: RequestMethod, to url: URL, body: RequestBody = .none, options: CallOptions = CallOptions()
    ) async throws -> ActionResponse {
        ActionResponse(
            response: try await Call(self, at: .url(url), options: options).send(method, to: url, body: body),
            method: method)
    }

    /// Sends an action to a URL template expanded with the call's variables.
    public func send(
        _ method: RequestMethod, to template: String, body: RequestBody = .none, options: CallOptions = CallOptions()
    ) async throws -> ActionResponse {
        let call = try Call(self, at: .template(template), options: options)
        return ActionResponse(response: try await call.send(method, to: call.rootURL, body: body), method: method)
    }

    /// Sends an action to the link of `rel` on a fetched resource: templated links expand
    /// with the call's variables, relative hrefs resolve against the resource's URL.
    ///
    /// ```swift
    /// let order = try await manager.document(at: orderURL)
    /// try await manager.send(.delete, rel: "ea:cancel", of: order)
    /// ```
    ///
    /// Credential-bearing headers go to the resource's own origin (and allowed origins).
    ///
    /// - Throws: ``HalleyError/Code/missingRelation`` naming the rels the resource has, and as
    ///   ``send(_:to:body:options:)-(_,URL,_,_)``.
    public func send(
        _ method: RequestMethod, rel: LinkRelation, of resource: HALResource, linkName: String? = nil,
        body: RequestBody = .none, options: CallOptions = CallOptions()
    ) async throws -> ActionResponse {
        // Actions act on a link: `_links` first, an embedded resource's own `self` otherwise.
        // The resource's origin is trusted, not wherever its link points.
        let call = try Call(self, at: .resource(resource), options: options)
        let resolver = call.resolver(preferring: .links)
        let target = try CallTarget.following(
            rel, named: linkName, in: resource, includePath: nil, for: .action, resolver: resolver)
        guard let url = try target.location(resolver) else {
            throw RelationResolver.missing(rel, named: linkName, in: resource, includePath: nil)
        }
        return ActionResponse(response: try await call.send(method, to: url, body: body), method: method)
    }

    /// Sends an action and decodes the response body as `type`.
    public func send<Value: Decodable>(
        _ method: RequestMethod, to url: URL, body: RequestBody = .none, decoding type: Value.Type,
        decoder: JSONDecoder? = nil, options: CallOptions = CallOptions()
    ) async throws -> Value {
        try await send(method, to: url, body: body, options: options).decode(
            type, decoder: decoder ?? configuration.decoder)
    }
}
