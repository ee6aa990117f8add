// swift-format-ignore-file
// RequestPolicyCredentialsAndCaching.md's Swift blocks, verbatim between `// snippet` and
// `// end snippet` (SnippetSyncTests holds them to the article). Everything else is
// scaffolding: the parameters stand for what the article leaves to the reader, and
// ArticleSnippetTests runs the configurations against in-memory servers.
import Foundation
import Halley

@MainActor func policyWhere() async throws -> (ResourceManager, CallOptions, HALResource) {
    // snippet RequestPolicyCredentialsAndCaching.md "Where"
    var configuration = ResourceManager.Configuration()
    configuration.headers = ["User-Agent": "Shop/2.1"]
    configuration.requestTimeout = .seconds(10)  // each attempt of every call
    configuration.retryPolicy = .standard        // 3 attempts for every call
    let manager = ResourceManager(requester: URLSessionRequester(), configuration: configuration)

    var options = CallOptions()
    options.requestTimeout = .seconds(2)         // this call's attempts
    options.retryPolicy = RetryPolicy.none       // this call: no retries
    options.deadline = .seconds(5)               // this whole call, every request included
    let status = try await manager.document(at: URL(string: "https://shop.example.com/status")!, options: options)
    // end snippet
    return (manager, options, status)
}

func policyCredentials(token: String, apiKey: String) -> CallOptions {
    // snippet RequestPolicyCredentialsAndCaching.md "Credentials"
    var options = CallOptions()
    options.headers = ["Authorization": "Bearer \(token)", "X-Api-Key": apiKey]
    options.credentialHeaders = ["X-Api-Key"]
    options.allowedOrigins = [Origin("https://media.example.com")!]
    // end snippet
    return options
}

func policyRefresh() -> (ResourceManager.Configuration, TokenStore) {
    // snippet RequestPolicyCredentialsAndCaching.md "Refresh"
    let tokens = TokenStore()  // yours: current() returns the token, refresh() renews it
    var configuration = ResourceManager.Configuration()
    configuration.headerProvider = { ["Authorization": "Bearer \(try await tokens.current())"] }
    configuration.refreshCredentials = { try await tokens.refresh() }
    // end snippet
    return (configuration, tokens)
}

func policyRetries() -> ResourceManager.Configuration {
    var configuration = ResourceManager.Configuration()
    // snippet RequestPolicyCredentialsAndCaching.md "Retries"
    var retries = RetryPolicy.standard
    retries.maxAttempts = 5
    retries.retryableMethods.insert(.post)  // only if your POSTs are idempotent
    configuration.retryPolicy = retries
    // end snippet
    return configuration
}

func policyValidationAndFallback(savedCopies: [URL: Data]) -> ResourceManager.Configuration {
    var configuration = ResourceManager.Configuration()
    // snippet RequestPolicyCredentialsAndCaching.md "Validation and fallback"
    struct MissingSelfLink: Error {}

    configuration.validator = { response, document in
        if let document, document.links.selfLink == nil { throw MissingSelfLink() }
    }
    configuration.fallback = { request, error in
        guard error.code == .transport, let body = savedCopies[request.url] else { return nil }
        return ResourceResponse(status: 200, headers: ["Content-Type": "application/hal+json"],
                                url: request.url, body: body)
    }
    // end snippet
    return configuration
}

func policyCaching() -> ResourceManager.Configuration {
    var configuration = ResourceManager.Configuration()
    // snippet RequestPolicyCredentialsAndCaching.md "Caching"
    configuration.cache = ResponseCache(maximumBytes: 20_000_000)
    // end snippet
    return configuration
}

func policyObserving() -> ResourceManager.Configuration {
    var configuration = ResourceManager.Configuration()
    // snippet RequestPolicyCredentialsAndCaching.md "Observing"
    configuration.observer = { event in
        switch event {
        case .requestFinished(let record):
            print(record)  // GET https://shop.example.com/status 200 41 bytes in 0.0124 seconds (attempt 1)
        case .deprecatedLinkFollowed(_, let url, let deprecation):
            print("deprecated:", url, deprecation)
        default:
            break
        }
    }
    // end snippet
    return configuration
}
