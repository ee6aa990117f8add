import Foundation
import Halley
import Testing

/// A requester that parks every request until the test releases it, so round trips and
/// ordering are observed as steps, not as timings that a loaded machine can distort.
public actor GatedRequester: ResourceRequester {
    /// A requester with no documents and nothing parked.
    public init() {}

    private var documents: [String: Data] = [:]
    private var parked: [(url: String, continuation: CheckedContinuation<ResourceResponse, any Error>)] = []
    /// Every URL requested, in arrival order.
    public private(set) var arrivals: [String] = []

    public func register(_ url: String, json: JSONValue) {
        documents[url] = json.serialized()
    }

    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        let url = request.url.absoluteString
        arrivals.append(url)
        let id = arrivals.count
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    parked.append((url, continuation))
                    parkedIDs.append(id)
                }
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    private var parkedIDs: [Int] = []

    private func cancel(_ id: Int) {
        guard let index = parkedIDs.firstIndex(of: id) else { return }
        parkedIDs.remove(at: index)
        parked.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    /// The URLs waiting for a release.
    public var waiting: [String] { parked.map(\.url) }

    /// Waits until at least `count` requests are parked; fails after `limit`.
    public func waitForParked(_ count: Int, limit: Duration = .seconds(20)) async throws -> [String] {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while parked.count < count {
            guard clock.now < deadline else {
                throw GateTimeout(description: "expected \(count) parked requests, have \(parked.map(\.url))")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        return waiting
    }

    /// Waits until no request is parked (each was answered or cancelled); `false` after `limit`.
    public func waitUntilNothingWaits(limit: Duration = .seconds(2)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !parked.isEmpty {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }

    /// Answers the parked requests whose URL satisfies `predicate`.
    public func release(where predicate: (String) -> Bool = { _ in true }) {
        var kept: [(url: String, continuation: CheckedContinuation<ResourceResponse, any Error>)] = []
        var keptIDs: [Int] = []
        for (entry, id) in zip(parked, parkedIDs) {
            guard predicate(entry.url) else {
                kept.append(entry)
                keptIDs.append(id)
                continue
            }
            let body = documents[entry.url]
            let url = URL(string: entry.url) ?? Graph.url("/")
            entry.continuation.resume(
                returning: ResourceResponse(status: body == nil ? 404 : 200, url: url, body: body ?? Data()))
        }
        parked = kept
        parkedIDs = keptIDs
    }

    public struct GateTimeout: Error, CustomStringConvertible { public let description: String }
}
