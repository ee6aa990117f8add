// swift-format-ignore-file
// README.md's "HAL document model" block, verbatim between `// snippet` and `// end snippet`
// (SnippetSyncTests holds it to the README). The parameter and the line after the block are
// scaffolding; ReadmeSnippetTests runs it on the HAL draft's orders example.

// snippet README.md "HAL document model"
import Foundation
import Halley

// end snippet

struct OrdersSummary {
    let processing: Int?
    let next: String?
    let nextURL: URL?
    let findIsTemplated: Bool?
    let findDocumentation: URL?
    let orderCount: Int
    let templated: [String]
}

func readmeDocumentModel(body: Data) throws -> OrdersSummary {
    // snippet README.md "HAL document model"
    let orders = try HALResource(parsing: body, url: URL(string: "https://example.com/orders"))
    let processing = orders.state["currentlyProcessing"]?.intValue         // 14
    let next = orders.links.link(for: .next)?.href                         // "/orders?page=2"
    let nextURL = orders.url(for: orders.links.link(for: .next)!)          // https://example.com/orders?page=2
    let findIsTemplated = orders.links.link(for: "ea:find")?.templated     // true
    let findDocumentation = orders.links.documentationURL(for: "ea:find")  // http://example.com/docs/rels/find
    let orderCount = orders.embedded.resources(for: "ea:order").count      // 2
    // end snippet
    var templated: [String] = []
    // snippet README.md "HAL document model"
    for (rel, link) in orders.links where link.isTemplated {
        print(rel, link.href)  // curies http://example.com/docs/rels/{rel}, then ea:find /orders{?id}
        // end snippet
        templated.append("\(rel) \(link.href)")
        // snippet README.md "HAL document model"
    }
    // end snippet
    return OrdersSummary(
        processing: processing, next: next, nextURL: nextURL, findIsTemplated: findIsTemplated,
        findDocumentation: findDocumentation, orderCount: orderCount, templated: templated)
}
