import Foundation

/// How the original Halley turned a link into a URL; accepted by the manual-traversal calls
/// (``ResourceManager/resource(from:includes:options:linkResolver:)``) so Halley code
/// compiles unchanged.
///
/// Halley always expands templates here (with the manager's variables, which include
/// ``DefaultTemplateHandler``'s), so the resolver only contributes per-include query items.
public protocol LinkResolver: Sendable {
    /// Query items to add to the links of each include path (`"[contacts].website"`).
    var includeQueryItems: [String: [URLQueryItem]] { get }
}

/// Resolves links by their href, with template values from ``DefaultTemplateHandler``: the
/// original Halley's default resolver.
///
/// ```swift
/// let contact = try await manager.resource(from: url, includes: ["website"], linkResolver: URLLinkResolver())
/// ```
public struct URLLinkResolver: LinkResolver {
    /// None.
    public var includeQueryItems: [String: [URLQueryItem]] { [:] }

    /// Creates the resolver.
    public init() {}
}

/// Expands templates and adds query items per include path, as in the original Halley: a
/// query item whose name the link already has joins its value with a comma
/// (`?fields=id` + `fields=url` → `?fields=id,url`).
///
/// ```swift
/// let resolver = TemplateLinkResolver(parameters: ["website": [URLQueryItem(name: "fields", value: "url")]])
/// ```
public struct TemplateLinkResolver: LinkResolver {
    /// Query items per include path.
    public let includeQueryItems: [String: [URLQueryItem]]

    /// Creates a resolver adding `parameters[includePath]` to the links of each include path.
    public init(parameters: [String: [URLQueryItem]]) {
        includeQueryItems = parameters
    }
}
