import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

@Suite struct RequesterTests {
    /// A completion-handler requester in the original Halley shape.
    final class LegacyRequester: RequesterInterface, Sendable {
        let cancelled = LockedValue(0)
        let bodies: [String: Data]
        let delay: Duration

        init(bodies: [String: Data], delay: Duration = .zero) {
            self.bodies = bodies
            self.delay = delay
        }

        struct Container: RequestContainerInterface {
            let onCancel: @Sendable () -> Void
            func cancelRequest() { onCancel() }
        }

        func requestResource(at url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void)
            -> any RequestContainerInterface
        {
            let finished = LockedValue(false)
            let body = bodies[url.absoluteString]
            let delay = self.delay
            Task {
                try? await Task.sleep(for: delay)
                guard !finished.exchange(true) else { return }
                completion(body.map { .success($0) } ?? .failure(URLError(.fileDoesNotExist)))
            }
            return Container { [cancelled] in
                cancelled.withLock { $0 += 1 }
                if !finished.exchange(true) { completion(.failure(URLError(.cancelled))) }
            }
        }
    }

    @Test func completionHandlerRequestersPlugInDirectly() async throws {
        let legacy = LegacyRequester(bodies: [
            Graph.base + "/a": Graph.resource("/a", links: ["b": Graph.link("/b")]).serialized(),
            Graph.base + "/b": Data(#"{"b": true}"#.utf8),
        ])
        let manager = ResourceManager(requester: legacy)
        let result = try await manager.resource(from: Graph.url("/a"), includes: ["b"])
        #expect(result["b"]?["b"] == true)
    }

    /// The original Halley's requester: a plain class with mutable state, not `Sendable`.
    /// Each answer waits until every request has been asked for, so the call completes only
    /// if requests overlap; ThreadSanitizer checks that `calls` is never raced on.
    class UnsafeLegacyRequester: RequesterInterface {
        var calls: [URL] = []  // unsynchronised on purpose: the manager must never race on it
        let expected: Int
        let body: Data
        let started = DispatchGroup()

        init(body: Data, expected: Int) {
            self.body = body
            self.expected = expected
            for _ in 0..<expected { started.enter() }
        }

        func requestResource(at url: URL, completion: @escaping @Sendable (Result<Data, Error>) -> Void)
            -> RequestContainerInterface
        {
            calls.append(url)
            let body = self.body
            let started = self.started
            if calls.count <= expected { started.leave() }
            if calls.count == 1 {
                completion(.success(body))  // the root
            } else {
                started.notify(queue: .global()) { completion(.success(body)) }
            }
            return NoopContainer()
        }

        struct NoopContainer: RequestContainerInterface { func cancelRequest() {} }
    }

    @Test func aNonSendableLegacyClassIsCalledFromOneExecutorWhileRequestsStillOverlap() async throws {
        let links = (0..<8).map { Graph.link("/item/\($0)") }
        let root = Graph.resource("/root", links: ["item": .array(links)]).serialized()
        // The root, then eight items that all answer only once all eight were asked for.
        let requester = UnsafeLegacyRequester(body: root, expected: 9)
        let manager = ResourceManager.over(requester) { $0.maxConcurrency = 8 }
        let result = try await manager.resource(from: Graph.url("/root"), includes: ["[item]"])
        #expect(result["item"]?.arrayValue?.count == 8)
    }

    /// An `async` requester answering 404 with a header, and recording what it was sent.
    actor RecordingRequester: RequesterInterface {
        var received: [ResourceRequest] = []
        func response(for request: ResourceRequest) async throws -> ResourceResponse {
            received.append(request)
            return ResourceResponse(status: 404, headers: ["X-Answer": "missing"], url: request.url, body: Data())
        }
    }

    @Test func aSendableRequesterErasedToAnyRequesterInterfaceLosesNothing() async throws {
        let recording = RecordingRequester()
        let erased: any RequesterInterface = recording
        let manager = ResourceManager(requester: erased)
        var options = CallOptions()
        options.headers = ["Authorization": "Bearer t"]
        let error = await #expect(throws: HalleyError.self) {
            _ = try await manager.resource(from: Graph.url("/a"), options: options)
        }
        #expect(error?.httpError?.status == 404)
        #expect(error?.httpError?.headers["X-Answer"] == "missing")
        #expect(await recording.received.first?.headers["Authorization"] == "Bearer t")
    }

    @Test func cancellingCallsCancelRequestOnTheLegacyContainer() async throws {
        let legacy = LegacyRequester(bodies: [:], delay: .seconds(10))
        let manager = ResourceManager(requester: legacy)
        let task = Task { try await manager.resource(from: Graph.url("/a")) }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        _ = await task.result
        #expect(legacy.cancelled.get() == 1)
    }

    /// The original Halley's class, not `Sendable`, whose requests answer only when cancelled.
    class HangingLegacyRequester: RequesterInterface {
        var calls: [URL] = []  // unsynchronised: non-Sendable, so the manager wraps it
        let started: AsyncStream<URL>.Continuation
        let cancelled: LockedValue<Int>

        init(started: AsyncStream<URL>.Continuation, cancelled: LockedValue<Int>) {
            self.started = started
            self.cancelled = cancelled
        }

        struct Container: RequestContainerInterface {
            let onCancel: @Sendable () -> Void
            func cancelRequest() { onCancel() }
        }

        func requestResource(at url: URL, completion: @escaping @Sendable (Result<Data, Error>) -> Void)
            -> RequestContainerInterface
        {
            calls.append(url)
            started.yield(url)
            return Container { [cancelled] in
                cancelled.withLock { $0 += 1 }
                completion(.failure(URLError(.cancelled)))
            }
        }
    }

    @Test func cancellingCallsCancelRequestOnANonSendableLegacyContainer() async throws {
        let (started, continuation) = AsyncStream<URL>.makeStream()
        let cancelled = LockedValue(0)
        let manager = ResourceManager(
            requester: HangingLegacyRequester(started: continuation, cancelled: cancelled))
        let task = Task { try await manager.resource(from: Graph.url("/a")) }
        var calls = started.makeAsyncIterator()
        #expect(await calls.next() == Graph.url("/a"))
        task.cancel()
        let result = await task.result
        #expect(throws: (any Error).self) { try result.get() }
        #expect(cancelled.get() == 1)
    }

    @Test func fileRequesterMapsPathsQueriesAndIndexes() throws {
        let requester = FileRequester(directory: URL(fileURLWithPath: "/srv/fixtures"))
        func files(_ url: String) throws -> [String] {
            requester.candidates(for: try #require(URL(string: url))).map(\.path)
        }
        #expect(
            try files("https://api.example.com/contacts/1") == [
                "/srv/fixtures/contacts/1.json", "/srv/fixtures/contacts/1/index.json",
            ])
        #expect(try files("https://api.example.com/") == ["/srv/fixtures/index.json"])
        #expect(try files("https://api.example.com") == ["/srv/fixtures/index.json"])
        #expect(try files("https://api.example.com/contacts/") == ["/srv/fixtures/contacts/index.json"])
        #expect(
            try files("https://api.example.com/contacts?page=2&size=5") == ["/srv/fixtures/contacts@page=2&size=5.json"]
        )
        #expect(try files("https://api.example.com/data.json") == ["/srv/fixtures/data.json"])
        #expect(
            try files("file:///etc/passwd") == ["/srv/fixtures/etc/passwd.json", "/srv/fixtures/etc/passwd/index.json"])
    }

    /// A scratch fixture directory holding `a.json`, with `secret.json` beside it (outside)
    /// and a symlink `link.json` inside pointing at the secret.
    private func escapeSandbox() throws -> (directory: URL, cleanup: () -> Void) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("halley-fixtures-\(UUID().uuidString)")
        let directory = root.appendingPathComponent("api")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("b"), withIntermediateDirectories: true)
        try Data(#"{"inside": true}"#.utf8).write(to: directory.appendingPathComponent("a.json"))
        try Data(#"{"secret": true}"#.utf8).write(to: root.appendingPathComponent("secret.json"))
        try FileManager.default.createSymbolicLink(
            at: directory.appendingPathComponent("link.json"),
            withDestinationURL: root.appendingPathComponent("secret.json"))
        try FileManager.default.createSymbolicLink(
            at: directory.appendingPathComponent("out"), withDestinationURL: root)
        return (directory, { try? FileManager.default.removeItem(at: root) })
    }

    @Test func fileRequesterNeverReadsOutsideItsDirectory() async throws {
        let (directory, cleanup) = try escapeSandbox()
        defer { cleanup() }
        let requester = FileRequester(directory: directory)
        func response(_ url: String) async throws -> ResourceResponse {
            try await requester.response(for: ResourceRequest(url: try #require(URL(string: url))))
        }
        #expect(try await response("https://x.example/a").status == 200)
        for escape in [
            "https://x.example/a?x=/../../secret", "https://x.example/b/c?x=/../../../secret",
            "https://x.example/link", "https://x.example/out/secret", "https://x.example/a/../../secret",
            "https://x.example/a/%2E%2E/%2E%2E/secret",
        ] {
            await #expect(throws: HalleyError.self, "\(escape)") {
                let answer = try await response(escape)
                Issue.record("\(escape) answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
            }
            do {
                _ = try await response(escape)
            } catch let error as HalleyError {
                #expect(error.code == .invalidURL)
                #expect(error.message.contains("outside the fixture directory"))
            }
        }
        // Through the engine, the same refusal is the call's error.
        await #expect {
            _ = try await ResourceManager(requester: requester).resource(
                from: try #require(URL(string: "https://x.example/link")))
        } throws: { ($0 as? HalleyError)?.code == .invalidURL }
    }

    @Test func fileRequesterServesFixturesAndAnswers404ForMissingOnes() async throws {
        let requester = FileRequester(directory: Fixture.url("hal"))
        let found = try await requester.response(
            for: ResourceRequest(url: try #require(URL(string: "https://x.example/orders"))))
        #expect(found.status == 200)
        #expect(try HALResource(parsing: found.body).links.link(for: .next) != nil)
        let missing = try await requester.response(
            for: ResourceRequest(url: try #require(URL(string: "https://x.example/none"))))
        #expect(missing.status == 404)
    }
}

@Suite struct DocumentFetchTests {
    @Test func documentAtURLReturnsTheParsedResourceWithItsBase() async throws {
        let requester = InMemoryRequester()
        await requester.register(Graph.base + "/a", json: Graph.resource("/a", links: ["next": Graph.link("?page=2")]))
        let document = try await ResourceManager(requester: requester).document(at: Graph.url("/a"))
        let next = try #require(document.links.link(for: .next))
        #expect(document.url(for: next)?.absoluteString == Graph.base + "/a?page=2")
    }
}
