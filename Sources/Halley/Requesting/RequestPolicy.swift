import Foundation

/// Supplies headers for each request, asynchronously: the hook for refreshing tokens.
///
/// ```swift
/// configuration.headerProvider = { ["Authorization": "Bearer \(try await tokens.current())"] }
/// ```
public typealias HeaderProvider = @Sendable () async throws -> HTTPHeaders

/// The last chance to change a request before it is sent (after every header rule).
public typealias RequestConfigurator = @Sendable (_ request: inout ResourceRequest) async throws -> Void

/// Rejects a 2xx response, e.g. a HAL document without a rel the app needs. `document` is
/// the parsed resource for traversals and `nil` for actions. Throw to reject.
public typealias ResponseValidator = @Sendable (_ response: ResourceResponse, _ document: HALResource?) throws -> Void

/// Supplies a response (say, from disk) when a request fails. Return `nil` to let the
/// failure stand. A fallback response is validated like any other.
public typealias ResponseFallback = @Sendable (_ request: ResourceRequest, _ error: HalleyError) async -> ResourceResponse?
