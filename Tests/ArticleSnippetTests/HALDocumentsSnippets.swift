// swift-format-ignore-file
// HALDocumentsAndJSON.md's "The document model" block, verbatim between `// snippet` and
// `// end snippet` (SnippetSyncTests holds it to the article). The parameter and the lines
// around the block are scaffolding; ArticleSnippetTests runs it on the HAL draft's orders example.

// snippet HALDocumentsAndJSON.md "The document model"
import Foundation
import Halley

// end snippet

import Testing

struct OrdersSummary {
    let processing: Int?
    let next: String?
    let nextURL: URL?
    let findIsTemplated: Bool?
    let findDocumentation: URL?
    let orderCount: Int
    let templated: [String]
}

func halDocumentsModel(body: Data) throws -> OrdersSummary {
    // snippet HALDocumentsAndJSON.md "The document model"
    let orders = try HALResource(parsing: body, url: URL(string: "https://example.com/orders"))
    let processing = orders.state["currentlyProcessing"]?.intValue         // 14
    let next = orders.links.link(for: .next)?.href                         // "/orders?page=2"
    let nextURL = orders.url(for: orders.links.link(for: .next)!)          // https://example.com/orders?page=2
    let findIsTemplated = orders.links.link(for: "ea:find")?.templated     // true
    let findDocumentation = orders.links.documentationURL(for: "ea:find")  // http://example.com/docs/rels/find
    let orderCount = orders.embedded.resources(for: "ea:order").count      // 2
    // end snippet
    var templated: [String] = []
    // snippet HALDocumentsAndJSON.md "The document model"
    for (rel, link) in orders.links where link.isTemplated {
        print(rel, link.href)  // curies http://example.com/docs/rels/{rel}, then ea:find /orders{?id}
        // end snippet
        templated.append("\(rel) \(link.href)")
        // snippet HALDocumentsAndJSON.md "The document model"
    }
    // end snippet
    return OrdersSummary(
        processing: processing, next: next, nextURL: nextURL, findIsTemplated: findIsTemplated,
        findDocumentation: findDocumentation, orderCount: orderCount, templated: templated)
}

@Suite struct HALDocumentsSnippetTests {
    @Test func halDocumentsReadTheOrdersExample() throws {
        let body = try Data(contentsOf: ArticleAPIs.fixtures.deletingLastPathComponent().appendingPathComponent("hal/orders.json"))
        let summary = try halDocumentsModel(body: body)
        #expect(summary.processing == 14)
        #expect(summary.next == "/orders?page=2")
        #expect(summary.nextURL?.absoluteString == "https://example.com/orders?page=2")
        #expect(summary.findIsTemplated == true)
        #expect(summary.findDocumentation?.absoluteString == "http://example.com/docs/rels/find")
        #expect(summary.orderCount == 2)
        #expect(summary.templated == ["curies http://example.com/docs/rels/{rel}", "ea:find /orders{?id}"])
    }
}
