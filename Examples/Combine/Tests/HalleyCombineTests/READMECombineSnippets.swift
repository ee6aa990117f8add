// swift-format-ignore-file
// (The original README's text, verbatim: the formatter must not touch it.)
import Foundation
import Halley
import HalleyCombine
import OpenCombine

// The Combine snippets of the original Halley's README (../shared/seeds/halley-README.txt),
// verbatim: the publishers sunk in a synchronous function, no `try await` added. Each body
// is a `SnippetBody`, which keeps what the statements return (the `AnyCancellable`s), so the
// second snippet's unused `sink` result is used, as an app's `cancellables` set would use it.

// MARK: Traversing

/// "Once defined, the requester is used when starting the initial resource request".
@SnippetBody
func readmeTraversingSnippet() -> [AnyCancellable] {
let resourceManager = ResourceManager(requester: AlamofireRequester())
let request = HalleyRequest<Contact>(
    url: "https//www.example.com/contact/1",
    includeType: .contactsAndWebsiteOfContacts,
    queryItems: [],
    decoder: JSONDecoder()
)
_ = resourceManager
    .request(request)
    .sink { _ in
        // Print error here
    } receiveValue: { contact in
        // Parsed and traversed Contact
    }
}

// MARK: Manual traversing

/// "The example above with contacts and website can be transpiled into".
@SnippetBody
func readmeManualTraversingSnippet() -> [AnyCancellable] {
let resourceManager = ResourceManager(requester: AlamofireRequester())
resourceManager
    .resource(
        from: URL(string: "https//www.example.com/contact/1")!,
        includes: [
            "[contacts]",
            "[contacts].[contacts]",
            "[contacts].website",
            "website"
        ],
        options: .default,
        linkResolver: TemplateLinkResolver(parameters: [:])
    )
    .sink { _ in
        // Print error here
    } receiveValue: { dict in
        // Parsed and traversed contact dict
    }
}

/// Collects the `AnyCancellable`s a snippet's statements produce; `_ = …` produces none.
@resultBuilder
enum SnippetBody {
    static func buildExpression(_ cancellable: AnyCancellable) -> [AnyCancellable] { [cancellable] }
    static func buildExpression(_ nothing: Void) -> [AnyCancellable] { [] }
    static func buildBlock(_ parts: [AnyCancellable]...) -> [AnyCancellable] { parts.flatMap { $0 } }
}
