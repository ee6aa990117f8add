import Foundation
import Halley

/// An ``InMemoryRequester`` seen as a requester that ignores ``ResourceRequest/timeout``, as a
/// completion-handler or home-made requester does: the engine's own watchdog is then all
/// that holds an attempt to `requestTimeout`, so tests of the watchdog use this.
public struct LimitIgnoringRequester: ResourceRequester, Sendable {
    public let base: InMemoryRequester

    /// `base`, with every request's limit taken off.
    public init(base: InMemoryRequester) { self.base = base }

    public var supportedSchemes: Set<String> { base.supportedSchemes }

    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        var unlimited = request
        unlimited.timeout = nil
        return try await base.response(for: unlimited)
    }
}
