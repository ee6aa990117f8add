// swift-format-ignore-file
// ChoosingARequester.md's Swift block, verbatim between `// snippet` and `// end snippet`
// (SnippetSyncTests holds it to the article). Compiled, not run: it makes URLSession and
// libcurl requesters, which `TransportDocExamples` in HalleyTests exercises.
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Halley

// CurlRequester is macOS's and Linux's: libcurl is not part of the other Apple platforms.
@available(iOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
func choosingARequester(mySession: URLSession) throws -> [ResourceManager] {
    // snippet ChoosingARequester.md "Which HTTP requester"
    let manager = ResourceManager()                                              // the platform's default
    let curl = ResourceManager(requester: try CurlRequester())                   // throws CurlUnavailableError
    let session = ResourceManager(requester: URLSessionRequester())              // URLSession everywhere
    let mine = ResourceManager(requester: URLSessionRequester(session: mySession)) // your URLSession's config
    // end snippet
    return [manager, curl, session, mine]
}
