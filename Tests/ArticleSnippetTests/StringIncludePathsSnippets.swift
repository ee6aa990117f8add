// swift-format-ignore-file
// StringIncludePaths.md's Swift blocks, verbatim between `// snippet` and `// end snippet`
// (SnippetSyncTests holds them to the article). Everything else is scaffolding;
// ArticleSnippetTests runs the functions against Fixtures/api.
import Foundation
import Halley

@MainActor func includePathsWithValues(manager: ResourceManager) async throws -> (String?, String?) {
    // snippet StringIncludePaths.md "Paths with values"
    let ada = try await manager.resource(
        from: URL(string: "https://api.example.com/contacts/1")!,
        includes: [
            "website",
            "contacts@grace.website",
            Include("avatar", variables: ["size": "small"]),
        ])
    let grace = ada["contacts"]?["name"]?.stringValue    // "Grace Hopper": one named link, to-one
    let avatarSize = ada["avatar"]?["size"]?.stringValue  // "small": /contacts/1/avatar?size=small
    // end snippet
    return (grace, avatarSize)
}

func includePathsMalformed() -> IncludePathError? {
    // snippet StringIncludePaths.md "Malformed"
    do {
        _ = try IncludePlan(paths: ["website", "[contacts"])
    } catch {
        print(error.code, error.path, error.offset)  // unclosedBracket [contacts 9
        // end snippet
        return error
        // snippet StringIncludePaths.md "Malformed"
    }
    // end snippet
    return nil
}

@MainActor func includePathsPartial(manager: ResourceManager) async throws -> (TraversalResult, [String]?) {
    // snippet StringIncludePaths.md "Partial"
    let result = try await manager.traverse(
        URL(string: "https://api.example.com/contacts/1")!,
        includes: ["[contacts].manager", "[contacts].website"])
    for failure in result.failures {
        print(failure.includePath ?? "", failure.url?.absoluteString ?? "", failure.code)
        // [contacts].manager https://api.example.com/contacts/99 http
    }
    let websites = result.document["contacts"]?.arrayValue?.compactMap { $0["website"]?["url"]?.stringValue }
    // ["https://grace.example.com", "https://alan.example.com"]
    // end snippet
    return (result, websites)
}
