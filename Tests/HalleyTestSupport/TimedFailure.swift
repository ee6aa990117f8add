import Foundation
import Halley
import Testing

/// What a request threw, and how long it took to throw it.
public struct TimedFailure: Sendable {
    /// What the request threw.
    public let error: any Error
    /// From the call to the error.
    public let elapsed: Duration
}

/// Runs one request and returns its error; a response is a test failure.
public func failure(
    of request: ResourceRequest, with requester: any RequesterInterface,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> TimedFailure {
    let clock = ContinuousClock()
    let start = clock.now
    do {
        let response = try await requester.response(for: request)
        Issue.record(
            "expected an error, got HTTP \(response.status) from \(request.url)", sourceLocation: sourceLocation)
        throw TLSLabError(description: "no error")
    } catch let error as TLSLabError {
        throw error
    } catch {
        return TimedFailure(error: error, elapsed: clock.now - start)
    }
}

/// What `call` returned or threw, and how long it took.
public func timedResult<Value>(_ call: () async throws -> Value) async -> (Result<Value, any Error>, Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let result: Result<Value, any Error>
    do {
        result = .success(try await call())
    } catch {
        result = .failure(error)
    }
    return (result, clock.now - start)
}

/// Runs one call and returns the ``HalleyError`` it threw (`nil` when it succeeded or threw
/// something else) and how long it took.
public func failure(of call: () async throws -> JSONValue) async -> (HalleyError?, Duration) {
    let (result, elapsed) = await timedResult(call)
    guard case .failure(let error) = result else { return (nil, elapsed) }
    return (error as? HalleyError, elapsed)
}

/// The ``HalleyError`` `call` threw; `nil` when it returned or threw something else.
public func halleyError(of call: () async throws -> some Any) async -> HalleyError? {
    do {
        _ = try await call()
        return nil
    } catch {
        return error as? HalleyError
    }
}

extension ResourceManager {
    /// A manager whose one URL, `url`, answers `body` with status 200: for decoding a
    /// document written in the test.
    public static func answering(_ body: String, at url: String) async -> ResourceManager {
        let requester = InMemoryRequester()
        await requester.register(url, InMemoryRequester.Route(body: Data(body.utf8)))
        return ResourceManager(requester: requester)
    }
}
