// swift-format-ignore-file
// Halley.md's (the documentation's landing page) Swift block, verbatim between `// snippet`
// and `// end snippet`; everything else is scaffolding. Its first line, which builds a
// manager with the default requester, is compiled on its own; ArticleSnippetTests runs the
// request against Fixtures/api.
import Foundation
import Halley

@MainActor func landingPageManager() -> ResourceManager {
    // snippet Halley.md "Overview"
    let manager = ResourceManager()
    // end snippet
    return manager
}

@MainActor func landingPageOverview(manager: ResourceManager) async throws -> Contact {
    // snippet Halley.md "Overview"
    let contact = try await manager.request(
        HalleyRequest<Contact>(url: "https://api.example.com/contacts/1",
                               includeType: .contactsWithWebsites))
    // end snippet
    return contact
}
