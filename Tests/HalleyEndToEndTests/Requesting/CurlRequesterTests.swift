import Foundation
import HalleyTestSupport
import Testing

@testable import Halley
@testable import HalleyHAL
@testable import HalleyTransport

/// `CurlRequester` on its own and under the engine, against the loopback test servers.
@Suite struct CurlRequesterTests {
    private func manager(_ configure: (inout ResourceManager.Configuration) -> Void = { _ in }) throws
        -> ResourceManager
    { .over(try CurlRequester(), configure: configure) }

    @Test func libcurlLoadsOnLinux() throws {
        #if os(Linux)
            #expect(CurlRequester.isAvailable)
            #expect(CurlRequester.libraryVersion?.hasPrefix("libcurl/") == true)
            #expect(DefaultRequester.make() is CurlRequester)
        #else
            #expect(DefaultRequester.make() is URLSessionRequester)
        #endif
    }

    // MARK: Exchanges

    @Test func aGzipBodyIsDecoded() async throws {
        let server = try await TestServer.hostileHTTP()
        let response = try await CurlRequester().response(for: ResourceRequest(url: server.url("/gzip-small")))
        #expect(response.status == 200)
        #expect(response.headers["Content-Encoding"] == "gzip")
        #expect(try JSONValue(parsing: response.body)["inflated"]?.stringValue?.count == 10_000)
    }

    @Test func theRequestSaysWhichEncodingsItAccepts() async throws {
        let server = try await TestServer.hostileHTTP()
        let response = try await CurlRequester().response(for: ResourceRequest(url: server.url("/echo")))
        let accepted = try JSONValue(parsing: response.body)["headers"]?["accept-encoding"]?.stringValue ?? ""
        #expect(accepted.contains("gzip"))
        #expect(accepted.contains("deflate"))
        // One line: the requester's own, not libcurl's as well (the echo joins repeats).
        let names = accepted.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(Set(names).count == names.count, "\(accepted)")

        // A caller's own Accept-Encoding, in any case, is the only one sent, and a gzip body
        // still arrives decoded.
        let own = try await CurlRequester().response(
            for: ResourceRequest(url: server.url("/echo"), headers: ["accept-ENCODING": "identity"]))
        #expect(try JSONValue(parsing: own.body)["headers"]?["accept-encoding"] == "identity")
        let gzip = try await CurlRequester().response(
            for: ResourceRequest(url: server.url("/gzip-small"), headers: ["Accept-Encoding": "gzip"]))
        #expect(try JSONValue(parsing: gzip.body)["inflated"]?.stringValue?.count == 10_000)
    }

    @Test(arguments: [RequestMethod.post, .put, .patch, .delete, .options, "PROPFIND"])
    func methodsAndBodiesAreSentAsGiven(method: RequestMethod) async throws {
        let server = try await TestServer.hostileHTTP()
        let body = Data(#"{"n": 1}"#.utf8)
        let response = try await CurlRequester().response(
            for: ResourceRequest(
                url: server.url("/echo"), method: method, headers: ["Content-Type": "application/json"],
                body: body))
        let echo = try JSONValue(parsing: response.body)
        #expect(echo["method"]?.stringValue == method.rawValue)
        #expect(echo["body"]?.stringValue == #"{"n": 1}"#)
        #expect(echo["headers"]?["content-type"] == "application/json")
        #expect(echo["headers"]?["expect"] == nil)
    }

    @Test func aPOSTWithoutABodyAndAHEADWork() async throws {
        let server = try await TestServer.hostileHTTP()
        let requester = try CurlRequester()
        let post = try await requester.response(for: ResourceRequest(url: server.url("/echo"), method: .post))
        #expect(try JSONValue(parsing: post.body)["method"] == "POST")
        let head = try await requester.response(for: ResourceRequest(url: server.url("/small"), method: .head))
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
    }

    @Test func headerValuesCannotInjectLines() async throws {
        let server = try await TestServer.hostileHTTP()
        let response = try await CurlRequester().response(
            for: ResourceRequest(url: server.url("/echo"), headers: ["X-Note": "a\r\nX-Injected: yes", "X-Empty": ""]))
        let headers = try JSONValue(parsing: response.body)["headers"]
        #expect(headers?["x-injected"] == nil)
        #expect(headers?["x-note"]?.stringValue?.hasPrefix("a") == true)
        #expect(headers?["x-empty"] == "")
    }

    @Test func aSchemeOtherThanHTTPIsRefused() async throws {
        await #expect(throws: URLError.self) {
            _ = try await CurlRequester().response(for: ResourceRequest(url: URL(fileURLWithPath: "/etc/passwd")))
        }
    }

    @Test func aRefusedConnectionIsATransportError() async throws {
        let closed = try #require(URL(string: "http://127.0.0.1:1/"))
        await #expect {
            _ = try await CurlRequester().response(for: ResourceRequest(url: closed))
        } throws: { error in
            // The URLError URLSession would give stays underneath, with libcurl's code.
            guard let error = error as? TransportError, let urlError = error.underlying as? URLError else {
                return false
            }
            return error.code == .connectionRefused && urlError.code == .cannotConnectToHost
        }
    }

    // MARK: Cancellation

    @Test func anAlreadyCancelledTaskSendsNothing() async throws {
        let server = try await TestServer.hostileHTTP()
        let requester = try CurlRequester()
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await requester.response(for: ResourceRequest(url: server.url("/slow?ms=5000")))
        }
        await #expect(throws: CancellationError.self) { try await call.value }
    }

    @Test func manyConcurrentRequestsAllComplete() async throws {
        let server = try await TestServer.hostileHTTP()
        let requester = try CurlRequester(maxConnectionsPerHost: 8)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<100 {
                group.addTask {
                    try await requester.response(for: ResourceRequest(url: server.url("/small?i=\(index)"))).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.count == 100)
        #expect(statuses.allSatisfy { $0 == 200 })
    }

    @Test func requestersComeAndGo() async throws {
        // Each requester's thread ends with it; many in a row must neither leak nor hang.
        let server = try await TestServer.hostileHTTP()
        for _ in 0..<20 {
            let requester = try CurlRequester()
            #expect(try await requester.response(for: ResourceRequest(url: server.url("/small"))).status == 200)
        }
        for _ in 0..<20 { _ = try CurlRequester() }  // never used: no thread at all
    }

    // MARK: Under the engine

    @Test func aTraversalFollowsRelativeHrefsAndRedirects() async throws {
        let server = try await TestServer.shared()
        // `person` is a redirect; its relative hrefs resolve against the final URL.
        let json = try await manager().resource(
            from: server.url("/"), includes: ["person.website", "person.[friends]"])
        #expect(json["person"]?["name"]?.stringValue == "Grace Hopper")
        #expect(json["person"]?["website"]?["url"]?.stringValue == "https://grace.example.com")
        #expect(
            json["person"]?["friends"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == [
                "Ada Lovelace", "Alan Turing",
            ])
    }

    /// The name the kernel gives the calling thread (`/proc/thread-self/comm`).
    private static func threadName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return comm.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// How a test's call reaches libcurl.
    enum Placement: String, CaseIterable, Sendable {
        /// A `CurlRequester` as made by default.
        case byDefault
        /// `CurlRequester(runsCallsOnLoopThread: false)`.
        case offTheLoop
        /// A wrapper that forwards `preferredTaskExecutor` to its `CurlRequester`.
        case forwardingWrapper
        /// A wrapper that does not.
        case plainWrapper
    }

    private struct Wrapper: RequesterInterface, Sendable {
        let base: CurlRequester
        let forwards: Bool
        var enforcesRequestTimeout: Bool { base.enforcesRequestTimeout }
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        var preferredTaskExecutor: (any TaskExecutor)? { forwards ? base.preferredTaskExecutor : nil }
        func response(for request: ResourceRequest) async throws -> ResourceResponse {
            try await base.response(for: request)
        }
    }

    /// A call's work (here: its observer, called as each response arrives) runs on the
    /// requester's own thread when the requester names it as its preferred executor (a
    /// `CurlRequester` by default, or a wrapper passing its answer on), and on the global
    /// executor otherwise. Either way the call's answer is the same.
    @Test(arguments: Placement.allCases)
    func aCallRunsWhereItsRequesterPrefers(placement: Placement) async throws {
        #if os(Linux)
            let server = try await TestServer.shared()
            let threads = Locked<Set<String>>([])
            let curl = try CurlRequester(runsCallsOnLoopThread: placement != .offTheLoop)
            let observe: (inout ResourceManager.Configuration) -> Void = {
                $0.observer = { event in
                    if case .requestFinished = event { threads.withLock { _ = $0.insert(Self.threadName()) } }
                }
            }
            let manager =
                switch placement {
                case .byDefault, .offTheLoop: ResourceManager.over(curl, configure: observe)
                case .forwardingWrapper: ResourceManager.over(Wrapper(base: curl, forwards: true), configure: observe)
                case .plainWrapper: ResourceManager.over(Wrapper(base: curl, forwards: false), configure: observe)
                }
            let json = try await manager.resource(from: server.url("/"), includes: ["person.[friends]"])
            #expect(json["person"]?["friends"]?.arrayValue?.count == 2)
            let seen = threads.withLock { $0 }
            #expect(!seen.isEmpty)
            if placement == .byDefault || placement == .forwardingWrapper {
                #expect(seen == [CurlEngine.threadName])
            } else {
                #expect(!seen.contains(CurlEngine.threadName))
            }
        #endif
    }

    /// The requester's executor, held past the requester's last copy, still runs what is
    /// given to it: before its thread ends, and after, on the global executor. Nothing waits
    /// forever for a thread that has gone.
    @Test(.timeLimit(.minutes(1))) func theExecutorOutlivingItsRequesterStillRunsWork() async throws {
        #if os(Linux)
            var requester: CurlRequester? = try CurlRequester()
            let executor = try #require(requester?.preferredTaskExecutor)
            let first = await withTaskExecutorPreference(executor) { () async -> String in
                await Task.yield()
                return Self.threadName()
            }
            #expect(first == CurlEngine.threadName)
            requester = nil  // the loop stops
            for round in 0..<20 {
                let value = await withTaskExecutorPreference(executor) { () async -> Int in
                    await Task.yield()
                    return round
                }
                #expect(value == round)
                try await Task.sleep(for: .milliseconds(5))
            }
            _ = requester
        #endif
    }

    /// Many calls at once through one requester, some cancelled and some past their deadline
    /// while their requests are in flight, all end: none waits for a thread that is busy
    /// running another.
    @Test(.timeLimit(.minutes(1))) func concurrentCallsCancelledOrTimedOutAllEnd() async throws {
        let server = try await TestServer.hostileHTTP()
        let manager = ResourceManager.over(try CurlRequester(maxConnectionsPerHost: 4))
        let deadline = {
            var options = CallOptions()
            options.deadline = .milliseconds(50)
            return options
        }()
        let outcomes = await withTaskGroup(of: String.self) { group in
            for index in 0..<60 {
                group.addTask {
                    let slow = index % 3 != 0
                    let call = Task {
                        try await manager.resource(
                            from: server.url(slow ? "/slow?ms=3000&i=\(index)" : "/small?i=\(index)"),
                            options: index % 3 == 1 ? deadline : CallOptions())
                    }
                    if index % 3 == 2 {
                        try? await Task.sleep(for: .milliseconds(20))
                        call.cancel()
                    }
                    switch await call.result {
                    case .success: return "ok"
                    case .failure(let error as HalleyError) where error.code == .timeout: return "timeout"
                    case .failure(let error) where error is CancellationError: return "cancelled"
                    case .failure(let error as HalleyError) where error.underlying is CancellationError:
                        return "cancelled"
                    case .failure(let error): return "other: \(error)"
                    }
                }
            }
            return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        }
        #expect(outcomes == ["ok": 20, "timeout": 20, "cancelled": 20])
    }

    @Test func credentialsDoNotFollowALinkToAnotherOrigin() async throws {
        let first = try await TestServer.shared()
        let second = try await TestServer.secondary()
        let tag = UUID().uuidString
        let json = try await manager { $0.headers = ["Authorization": "Bearer secret", "X-Client": "halley"] }
            .resource(from: first.linkTo(second.url("/echo-headers?tag=\(tag)")), includes: ["other"])
        let echoed = try #require(json["other"]?["headers"]?.objectValue)
        #expect(echoed["authorization"] == nil)
        #expect(echoed["x-client"] == "halley")
    }

    @Test(.timeLimit(.minutes(1))) func aFailedRelationshipCancelsItsSlowSibling() async throws {
        let server = try await TestServer.shared()
        let clock = ContinuousClock()
        let start = clock.now
        await #expect {
            _ = try await manager().resource(from: server.url("/dashboard"), includes: ["report", "owner", "alerts"])
        } throws: { ($0 as? HalleyError)?.httpError?.status == 404 }
        #expect(clock.now - start < .seconds(25), "the 30 s report was not waited for")
    }
}
