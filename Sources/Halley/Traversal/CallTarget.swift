import Foundation
import HalleyHAL

/// One hop of a call that follows relations before it fetches or acts (a follow chain's,
/// a form's or a state handle's): the relation, its template variables and the link name.
struct CallHop: Sendable, Hashable {
    let rel: LinkRelation
    let variables: [String: TemplateValue]
    let linkName: String?
}

/// Where a call's start, a follow chain's hop or an action leads: a resource already in
/// hand (embedded), or a URL.
struct CallTarget: Sendable {
    let url: URL?
    let embedded: HALResource?
    /// The URL of the resource holding the link: its origin receives an action's
    /// credentials.
    let trustRoot: URL
    let includePath: String?

    func resource(_ context: TraversalContext) async throws -> HALResource {
        if let embedded { return embedded }
        return try await context.document(at: try destination(context.resolver), includePath: includePath)
    }

    /// Where to act: the URL, or an embedded resource's own `self` link.
    func destination(_ resolver: RelationResolver) throws(HalleyError) -> URL {
        if let url = try location(resolver) { return url }
        throw HalleyError(
            code: .missingRelation, includePath: includePath, url: embedded?.baseURL,
            message: "the embedded resource at the end of the chain has no self link to act on")
    }

    /// ``destination(_:)``, `nil` for an embedded resource without a `self` link.
    func location(_ resolver: RelationResolver) throws(HalleyError) -> URL? {
        if let url { return url }
        guard let embedded, let selfLink = embedded.links.selfLink else { return nil }
        return try resolver.url(of: selfLink, in: embedded, includePath: includePath)
    }
}

extension CallTarget {
    /// Where the to-one relation `rel` of `resource` leads, for a hop or an action: the
    /// relation step (``RelationResolver/one(_:named:in:includePath:for:)``) with its link
    /// resolved.
    ///
    /// - Throws: ``HalleyError/Code/missingRelation`` naming the rels the resource has (and
    ///   the hop), and as the relation step.
    static func following(
        _ rel: LinkRelation, named name: String?, variables: [String: TemplateValue] = [:], in resource: HALResource,
        includePath: String?, for selection: RelationResolver.Selection, resolver: RelationResolver
    ) throws(HalleyError) -> CallTarget {
        let trust = Call.trustRoot(of: resource)
        switch try resolver.one(rel, named: name, in: resource, includePath: includePath, for: selection) {
        case .embedded(let embedded?, _):
            return CallTarget(url: nil, embedded: embedded, trustRoot: trust, includePath: includePath)
        case .link(let link):
            let url = try resolver.url(of: link, in: resource, variables: variables, includePath: includePath)
            return CallTarget(url: url, embedded: nil, trustRoot: trust, includePath: includePath)
        case .embedded(nil, _), .missing:
            let hop: Int? = if case .hop(let number) = selection { number } else { nil }
            throw RelationResolver.missing(rel, named: name, in: resource, includePath: includePath, hop: hop)
        }
    }
}
