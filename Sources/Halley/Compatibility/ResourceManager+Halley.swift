import Foundation
import HalleyHAL

/// A JSON object as Foundation types, the original Halley's result of manual traversal.
///
/// Kept under the original Halley's name, which its README's code uses. Alamofire declares a
/// `Parameters` too, so where a file imports both, write `Halley.Parameters` (or
/// `[String: Any]`, the same type). A second name would add nothing: new code reads
/// ``JSONValue`` instead.
public typealias Parameters = [String: Any]

extension CallOptions {
    /// Default options: the original Halley's `HalleyKit.Options.default`.
    public static var `default`: CallOptions { CallOptions() }
}

extension ResourceManager {
    /// The original Halley's manual traversal: the resource with its includes merged, as
    /// Foundation types.
    ///
    /// ```swift
    /// let contact = try await resourceManager.resource(
    ///     from: URL(string: "https://www.example.com/contact/1")!,
    ///     includes: ["[contacts]", "[contacts].[contacts]", "[contacts].website", "website"],
    ///     options: .default,
    ///     linkResolver: TemplateLinkResolver(parameters: [:]))
    /// ```
    public func resource(
        from url: URL, includes: [String] = [], options: CallOptions = .default, linkResolver: any LinkResolver
    ) async throws -> Parameters {
        try Self.parameters(await resource(from: url, plan: plan(includes, linkResolver), options: options))
    }

    /// The original Halley's manual collection traversal: each item with its includes merged.
    public func resourceCollection(
        from url: URL, includes: [String] = [], options: CallOptions = .default, linkResolver: any LinkResolver
    ) async throws -> [Parameters] {
        let collection = try await resourceCollectionWithMetadata(
            from: url, plan: plan(includes, linkResolver), options: options)
        return try collection.items.map(Self.parameters)
    }

    /// The original Halley's collection traversal with metadata: the collection's own
    /// attributes and links, with its items (includes merged) under `_embedded.item`.
    public func resourceCollectionWithMetadata(
        from url: URL, includes: [String] = [], options: CallOptions = .default, linkResolver: any LinkResolver
    ) async throws -> Parameters {
        let collection = try await resourceCollectionWithMetadata(
            from: url, plan: plan(includes, linkResolver), options: options)
        var object = collection.metadata
        object["_links"] = .object(collection.links.json)
        object["_embedded"] = ["item": .array(collection.items)]
        return try Self.parameters(.object(object))
    }

    /// The include paths with the resolver's query items attached.
    private func plan(_ includes: [String], _ resolver: any LinkResolver) throws(HalleyError) -> IncludePlan {
        try plan(includes.map { Include($0, queryItems: resolver.includeQueryItems[$0] ?? []) })
    }

    private static func parameters(_ value: JSONValue) throws(HalleyError) -> Parameters {
        guard let object = value.foundationObject as? Parameters else {
            throw HalleyError(code: .invalidDocument, message: "the result is \(value.kindWithArticle), not an object")
        }
        return object
    }
}
