import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// What a requester must implement: one of `RequesterInterface`'s two request requirements.
/// The defaults go one way only (`response(for:)`'s calls `requestResource(at:completion:)`,
/// whose default calls nothing), so they never call each other in a loop.
@Suite struct RequesterRequirementTests {
    /// Implements neither requirement: Swift accepts it, since each has a default.
    struct Forgotten: RequesterInterface, Sendable {}

    /// Implements neither either, and is not `Sendable`: the manager wraps it.
    final class ForgottenClass: RequesterInterface {
        var requests = 0  // unguarded state makes it non-Sendable
    }

    /// `body`'s value, or a failure once `limit` passes.
    private func within<Value: Sendable>(
        _ limit: Duration, _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withTimeLimit(limit, body) { TestFailure("still running after \(limit)") }
    }

    private struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The error `manager`'s first request ends with. It fails in milliseconds; the bound is
    /// wide because suites that load the machine on purpose run beside this one (3.8 s was
    /// seen once), and a loop never ends at all.
    private func firstRequestError(_ manager: ResourceManager) async throws -> HalleyError? {
        try await within(.seconds(30)) { () -> HalleyError? in
            do {
                _ = try await manager.document(at: Graph.url("/a"))
                return nil
            } catch let error as HalleyError {
                return error
            }
        }
    }

    /// The error `requester`'s completion call answers with; `nil` for a success.
    private static func completionError(
        of requester: some RequesterInterface & Sendable, at url: URL
    ) async -> (any Error)? {
        await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
            _ = requester.requestResource(at: url) { result in
                if case .failure(let error) = result {
                    continuation.resume(returning: error)
                } else {
                    continuation.resume(returning: nil)
                }
            }
        }
    }

    /// The two defaults once called each other for ever (each through a new task, so the
    /// call never ended and memory grew until the process died).
    @Test(.timeLimit(.minutes(1))) func aSendableRequesterImplementingNeitherFailsAtItsFirstRequest() async throws {
        let error = try await firstRequestError(ResourceManager(requester: Forgotten()))
        let unimplemented = try #require(error?.underlying as? UnimplementedRequesterError)
        #expect(unimplemented.requester.hasSuffix("Forgotten"))
        #expect(unimplemented.description.contains("implements neither response(for:) nor requestResource"))

        // Called directly, `response(for:)` fails the same way, and the completion call says
        // only what it lacks.
        await #expect(throws: UnimplementedRequesterError(requester: String(reflecting: Forgotten.self))) {
            _ = try await Forgotten().response(for: ResourceRequest(url: Graph.url("/a")))
        }
        let completed = try await within(.seconds(30)) {
            await Self.completionError(of: Forgotten(), at: Graph.url("/a"))
        }
        let completionOnly = try #require(completed as? UnimplementedRequesterError)
        #expect(completionOnly.description.contains("does not implement requestResource(at:completion:)"))
        #expect(completionOnly.description.contains("call its response(for:) instead"))
    }

    /// The same for a class the manager takes without `Sendable`: it asks the completion call
    /// first, learns it is not answered, then `response(for:)`, whose default is the completion
    /// call again; the error ends it.
    @Test(.timeLimit(.minutes(1))) func aNonSendableRequesterImplementingNeitherFailsAtItsFirstRequest() async throws {
        let error = try await firstRequestError(ResourceManager(requester: ForgottenClass()))
        let unimplemented = try #require(error?.underlying as? UnimplementedRequesterError)
        #expect(unimplemented.requester.hasSuffix("ForgottenClass"))
        #expect(unimplemented.description.contains("implements neither response(for:) nor requestResource"))
    }

    /// An `async` requester answers the completion call with the typed error at once rather
    /// than running `response(for:)`: that default calling the other was the loop.
    @Test func anAsyncRequesterDoesNotAnswerTheCompletionCall() async throws {
        let requester = FileRequester(directory: Fixture.url("hal"))
        let orders = try #require(URL(string: "https://x.example/orders"))
        let error = try #require(await Self.completionError(of: requester, at: orders) as? UnimplementedRequesterError)
        #expect(error.requester.hasSuffix("FileRequester"))
        // Its own call still answers.
        let found = try await requester.response(for: ResourceRequest(url: orders))
        #expect(found.status == 200)
    }

    /// A `Sendable` `async` requester is what the engine calls, with the whole request.
    struct RecordingRequester: RequesterInterface, Sendable {
        let seen = LockedValue<[ResourceRequest]>([])
        func response(for request: ResourceRequest) async throws -> ResourceResponse {
            seen.withLock { $0.append(request) }
            return ResourceResponse(
                status: 201, headers: ["Location": "/orders/7", "X-Answer": "created"], url: request.url, body: Data())
        }
    }

    @Test func aSendableAsyncRequesterGetsTheWholeRequest() async throws {
        let requester = RecordingRequester()
        var configuration = ResourceManager.Configuration()
        configuration.headers = ["Authorization": "Bearer t"]
        let manager = ResourceManager(requester: requester, configuration: configuration)
        let created = try await manager.send(.put, to: Graph.url("/orders/7"), body: .json(["item": 2]))
        #expect(created.status == 201)
        #expect(created.headers["X-Answer"] == "created")
        let sent = try #require(requester.seen.get().first)
        #expect(sent.method == .put)
        #expect(sent.url == Graph.url("/orders/7"))
        #expect(sent.headers["Authorization"] == "Bearer t")
        #expect(sent.headers["Content-Type"] == "application/json")
        #expect(try JSONValue(parsing: try #require(sent.body)) == ["item": 2])
    }

    /// An `async` requester that is not `Sendable`: a class with unguarded state. What it saw
    /// goes to a log it shares with the test.
    final class UnsafeAsyncRequester: RequesterInterface {
        struct Seen: Sendable {
            var requests: [ResourceRequest] = []
            var mostAtOnce = 0
        }
        let seen: LockedValue<Seen>
        private var inside = 0  // unguarded on purpose: the manager must never enter twice at once

        init(seen: LockedValue<Seen>) { self.seen = seen }

        func response(for request: ResourceRequest) async throws -> ResourceResponse {
            inside += 1
            let now = inside
            seen.withLock {
                $0.requests.append(request)
                $0.mostAtOnce = max($0.mostAtOnce, now)
            }
            try await Task.sleep(for: .milliseconds(5))
            inside -= 1
            if request.method == .post {
                return ResourceResponse(
                    status: 201, headers: ["Location": "/orders/7", "X-Answer": "created"], url: request.url,
                    body: Data())
            }
            let links: JSONObject =
                request.url.path == "/root" ? ["item": .array((0..<6).map { Graph.link("/item/\($0)") })] : [:]
            return ResourceResponse(
                status: 200, headers: ["Content-Type": "application/hal+json"], url: request.url,
                body: Graph.resource(request.url.path, links: links).serialized())
        }
    }

    /// Once the whole request travelled beside the completion call in a task-local; now the
    /// requester's own `response(for:)` gets it, one request at a time.
    @Test func aNonSendableAsyncRequesterGetsTheWholeRequestOneAtATime() async throws {
        let seen = LockedValue(UnsafeAsyncRequester.Seen())
        var configuration = ResourceManager.Configuration()
        configuration.headers = ["Authorization": "Bearer t", "X-Client": "tests"]
        let manager = ResourceManager(requester: UnsafeAsyncRequester(seen: seen), configuration: configuration)

        let created = try await manager.send(.post, to: Graph.url("/orders"), body: .json(["item": 1]))
        #expect(created.status == 201)
        #expect(created.headers["X-Answer"] == "created")
        #expect(created.location == Graph.url("/orders/7"))
        let post = try #require(seen.get().requests.first)
        #expect(post.method == .post)
        #expect(post.headers["Authorization"] == "Bearer t")
        #expect(post.headers["X-Client"] == "tests")
        #expect(post.headers["Content-Type"] == "application/json")
        #expect(try JSONValue(parsing: try #require(post.body)) == ["item": 1])

        var options = CallOptions()
        options.maxConcurrency = 6
        let root = try await manager.resource(from: Graph.url("/root"), includes: ["[item]"], options: options)
        #expect(root["item"]?.arrayValue?.count == 6)
        #expect(seen.get().requests.count == 8)
        #expect(seen.get().mostAtOnce == 1, "a non-Sendable requester was entered by two tasks at once")
    }

    /// Behind a plain `any RequesterInterface` the manager cannot see `Sendable`, but an actor
    /// or one of Halley's own requesters is recognised at run time and keeps its requests
    /// overlapping (wrapped, each would get one request at a time).
    @Test func anActorOrABuiltInRequesterTypedAsAPlainExistentialIsNotSerialised() async throws {
        let memory = InMemoryRequester(latency: .milliseconds(20))
        let links = (0..<4).map { Graph.link("/item/\($0)") }
        await memory.register(Graph.base + "/root", json: Graph.resource("/root", links: ["item": .array(links)]))
        for index in 0..<4 { await memory.register(Graph.base + "/item/\(index)", json: ["n": .string("\(index)")]) }
        let erased: any RequesterInterface = memory
        let manager = ResourceManager(requester: erased)
        #expect(manager.requester is InMemoryRequester)
        _ = try await manager.resource(from: Graph.url("/root"), includes: ["[item]"])
        #expect(await memory.maxInFlight > 1)

        let file: any RequesterInterface = FileRequester(directory: Fixture.url("hal"))
        #expect(ResourceManager(requester: file).requester is FileRequester)
        let session: any RequesterInterface = URLSessionRequester()
        #expect(ResourceManager(requester: session).requester is URLSessionRequester)
    }
}
