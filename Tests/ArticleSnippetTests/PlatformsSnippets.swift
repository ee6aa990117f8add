// Platforms.md's Swift block, verbatim between `// snippet` and `// end snippet`
// (SnippetSyncTests holds it to the article). HalleyEndToEndTests' URLSessionParityTests show
// the requester's own session keeping no URL cache.
import Foundation
import Halley

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

func platformsURLSessionCache() -> URLSessionRequester {
    // snippet Platforms.md "URLSession's own cache"
    let configuration = URLSessionConfiguration.default
    configuration.urlCache = URLCache.shared
    let cached = URLSessionRequester(session: URLSession(configuration: configuration))
    // end snippet
    return cached
}
