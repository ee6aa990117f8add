// swift-format-ignore-file
// ActingWithHALForms.md's Swift blocks, verbatim between `// snippet` and `// end snippet`
// (SnippetSyncTests holds them to the article). Compiled, not run: HalleyTests' Forms
// suites run the same calls against their fixtures.
import Foundation
import Halley

@MainActor func halFormsOverview(manager: ResourceManager, orderURL: URL) async throws -> ActionResponse {
    // snippet ActingWithHALForms.md "Overview"
    var options = CallOptions()
    options.acceptsForms = true
    let order = try await manager.document(at: orderURL, options: options)

    let edit = order.forms.default!                 // the "default" template
    let method = edit.method                        // PUT
    let quantity = edit.property(named: "quantity")  // max: Optional(10.0)

    let updated = try await manager.submit(edit, of: order, values: ["quantity": 3])
    // end snippet
    _ = (method, quantity)
    return updated
}

@MainActor func halFormsChains(manager: ResourceManager) async throws -> (HALForm, ActionResponse) {
    // snippet ActingWithHALForms.md "Chains"
    let orders = manager.entry("https://api.example.com/").follow("orders")
    let create = try await orders.form("default").get()
    let created = try await orders.form("default").submit(values: ["item": "book", "quantity": 2])
    // end snippet
    return (create, created)
}
