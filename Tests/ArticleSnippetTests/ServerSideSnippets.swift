// swift-format-ignore-file
// ServerSideSwift.md's Swift blocks, verbatim between `// snippet` and `// end snippet`
// (SnippetSyncTests holds them to the article). Everything else is scaffolding.
import Foundation
import Halley

func serverSideManager() -> ResourceManager {
    // snippet ServerSideSwift.md "One manager"
    var configuration = ResourceManager.Configuration()
    configuration.headers = ["User-Agent": "profile-service/1.4"]
    configuration.templateVariables = nil  // no process-wide variables (see below)
    configuration.maxConcurrency = 16       // per call
    configuration.cache = ResponseCache(maximumBytes: 50_000_000)
    let upstream = ResourceManager(requester: URLSessionRequester(), configuration: configuration)
    // end snippet
    return upstream
}

/// The article's handler, over any `upstream` manager.
struct ProfileService {
    let upstream: ResourceManager

    // snippet ServerSideSwift.md "Per call"
    func profile(bearer token: String, of contact: URL) async throws -> JSONValue {
        var options = CallOptions()
        options.headers = ["Authorization": "Bearer \(token)"]
        options.deadline = .seconds(2)  // within your own request's budget
        return try await upstream.resource(from: contact, includes: ["website", "[contacts]"], options: options)
    }
    // end snippet
}

func serverSideCredentialHeader() -> ResourceManager.Configuration {
    var configuration = ResourceManager.Configuration()
    // snippet ServerSideSwift.md "Credential header"
    configuration.credentialHeaders.insert("X-Api-Key")
    // end snippet
    return configuration
}

// snippet ServerSideSwift.md "Requester"
nonisolated struct TimedRequester<Base: ResourceRequester & Sendable>: ResourceRequester, Sendable {
    let base: Base
    let record: @Sendable (ResourceRequest, Duration) -> Void

    var supportedSchemes: Set<String> { base.supportedSchemes }

    func response(for request: ResourceRequest) async throws -> ResourceResponse {
        let clock = ContinuousClock()
        let start = clock.now
        defer { record(request, clock.now - start) }
        return try await base.response(for: request)
    }
}

// end snippet

func serverSideTimed() -> ResourceManager {
    // snippet ServerSideSwift.md "Requester"
    let timed = ResourceManager(requester: TimedRequester(base: URLSessionRequester()) { request, duration in
        print(request.method, request.url, duration)
    })
    // end snippet
    return timed
}
