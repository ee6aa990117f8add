// swift-format-ignore-file
// PerformanceAndLimits.md's Swift block, verbatim between `// snippet` and `// end snippet`
// (SnippetSyncTests holds it to the article). Everything else is scaffolding.
import Foundation
import Halley

func performanceLimits(manager: ResourceManager) -> (CallOptions, PagedItems<Contact>) {
    // snippet PerformanceAndLimits.md "Limits"
    var options = CallOptions()
    options.maxRequests = 200
    options.maxIncludeDepth = 8
    options.maxBodyBytes = 2 * 1024 * 1024
    options.maxItemsPerPage = 500
    options.parsing.json.maximumDepth = 64
    options.maxConcurrency = 4
    options.deadline = .seconds(3)

    var contacts = manager.items(Contact.self, from: "https://api.example.com/contacts", options: options)
    contacts.maxPages = 100
    // end snippet
    return (options, contacts)
}
