// swift-format-ignore-file
// Halley.md's (the documentation's landing page) Swift block, verbatim between `// snippet`
// and `// end snippet`; everything else is scaffolding. It builds a `URLSessionRequester`,
// so it is compiled, not run.
import Foundation
import Halley

@MainActor func landingPageOverview() async throws {
    // snippet Halley.md "Overview"
    let manager = ResourceManager(requester: URLSessionRequester())
    let contact = try await manager.request(
        HalleyRequest<Contact>(url: "https://api.example.com/contacts/1",
                               includeType: .contactsWithWebsites))
    // end snippet
    _ = contact
}
