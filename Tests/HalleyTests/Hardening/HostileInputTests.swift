import Foundation
import Testing

@testable import Halley

/// Whatever a server sends, the answer is a typed error or a result, in bounded time, and no
/// credential leaves its origin.
@Suite struct HostileInputTests {
    let base = Graph.base

    /// Serves `body` at /doc and fetches it with `include`.
    private func outcome(_ body: Data, include: Include? = nil, options: CallOptions = CallOptions())
        async -> Result<JSONValue, HalleyError>
    {
        let requester = InMemoryRequester()
        await requester.register(base + "/doc", InMemoryRequester.Route(body: body))
        do {
            let value = try await ResourceManager(requester: requester)
                .resource(from: Graph.url("/doc"), includes: include.map { [$0] } ?? [], options: options)
            return .success(value)
        } catch let error as HalleyError {
            return .failure(error)
        } catch {
            Issue.record("untyped error \(error)")
            return .failure(HalleyError(code: .init(rawValue: "untyped"), message: "\(error)"))
        }
    }

    private func expectFailure(
        _ result: Result<JSONValue, HalleyError>, _ code: HalleyError.Code, document: HALDocumentError.Code? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .failure(let error) = result else {
            Issue.record("expected \(code), got a document", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        if let document {
            #expect(error.documentError?.code == document, "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func truncatedJSON() async {
        expectFailure(
            await outcome(Data(#"{"_links": {"self": {"href": "/x"}"#.utf8)), .invalidDocument, document: .invalidJSON)
    }

    @Test func aRootArray() async {
        expectFailure(await outcome(Data(#"[{"a": 1}]"#.utf8)), .invalidDocument, document: .resourceNotObject)
    }

    @Test func linksAsAnArray() async {
        expectFailure(
            await outcome(Data(#"{"_links": [{"href": "/x"}]}"#.utf8)), .invalidDocument, document: .linksNotObject)
    }

    @Test func hrefMissingOrANumberFailOnlyWhenFollowed() async {
        for body in [
            #"{"_links": {"child": {"title": "no href"}}, "ok": 1}"#, #"{"_links": {"child": {"href": 7}}, "ok": 1}"#,
        ] {
            let data = Data(body.utf8)
            guard case .success(let value) = await outcome(data) else {
                Issue.record("a broken link that is not followed must not fail the document")
                continue
            }
            #expect(value["ok"] == 1)
            expectFailure(await outcome(data, include: "child"), .malformedLink)
        }
    }

    @Test func templatedAsAString() async {
        expectFailure(
            await outcome(
                Data(#"{"_links": {"child": {"href": "/c{?x}", "templated": "yes"}}}"#.utf8), include: "child"),
            .malformedLink, document: .templatedNotBoolean)
    }

    @Test func aTemplateWithAnUnclosedBrace() async {
        expectFailure(
            await outcome(Data(#"{"_links": {"child": {"href": "/c{?x", "templated": true}}}"#.utf8), include: "child"),
            .invalidTemplate)
    }

    @Test func hundredThousandDeepNesting() async {
        let body = Data(
            ("{\"a\":" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}").utf8)
        expectFailure(await outcome(body), .invalidDocument, document: .nestingTooDeep)
    }

    @Test func aFiftyMegabyteBodyFromAnyRequester() async {
        var options = CallOptions()
        options.maxBodyBytes = 1_000_000
        let body = Data(("\"" + String(repeating: "x", count: 2_000_000) + "\"").utf8)
        expectFailure(await outcome(body, options: options), .limitExceeded)
    }

    @Test func aLinkToALocalFile() async {
        let result = await outcome(
            Data(#"{"_links": {"child": {"href": "file:///etc/passwd"}}}"#.utf8), include: "child")
        expectFailure(result, .unsupportedScheme)
    }

    @Test func htmlWithStatus200() async {
        expectFailure(
            await outcome(Data("<!doctype html><html><body>Sign in</body></html>".utf8)), .invalidDocument,
            document: .invalidJSON)
    }

    @Test func invalidUTF8() async {
        var bytes = Array(#"{"name": ""#.utf8)
        bytes += [0xED, 0xA0, 0x80]  // an encoded surrogate, never valid UTF-8
        bytes += Array(#""}"#.utf8)
        expectFailure(await outcome(Data(bytes)), .invalidDocument, document: .invalidUTF8)
    }

    @Test func tooManyItemsOnOnePage() async throws {
        let items = (0..<50).map { _ in #"{"n": 1}"# }.joined(separator: ",")
        let requester = InMemoryRequester()
        await requester.register(base + "/page", text: #"{"_embedded": {"item": ["# + items + "]}}")
        var options = CallOptions()
        options.maxItemsPerPage = 10
        await #expect {
            try await ResourceManager(requester: requester).resourceCollection(
                from: Graph.url("/page"), options: options)
        } throws: { ($0 as? HalleyError)?.code == .limitExceeded }
    }

    @Test func aNextCycle() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            base + "/p", text: #"{"_links": {"next": {"href": "/p"}}, "_embedded": {"item": [{"n": 1}]}}"#)
        struct Item: Decodable { let n: Int }
        await #expect {
            try await ResourceManager(requester: requester).items(Item.self, from: Graph.url("/p")).collect()
        } throws: { ($0 as? HalleyError)?.code == .paginationCycle }
    }
}

/// The same corpus over real HTTP: bodies too big or endless, silent servers, redirect loops.
/// One at a time, on a server of their own, so their load cannot distort other suites.
/// Through the default requester, as a `ResourceManager()` would send them (libcurl on Linux);
/// `HostileTransportTests` holds each HTTP requester to the transport cases on its own.
@Suite(.serialized) struct HostileServerTests {
    private func manager(_ configure: (inout ResourceManager.Configuration) -> Void = { _ in }) -> ResourceManager {
        var configuration = ResourceManager.Configuration()
        configure(&configuration)
        return ResourceManager(requester: DefaultRequester.make(), configuration: configuration)
    }

    private func failure(of call: () async throws -> JSONValue) async -> (HalleyError?, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try await call()
            return (nil, clock.now - start)
        } catch {
            return (error as? HalleyError, clock.now - start)
        }
    }

    @Test func aFiftyMegabyteBodyIsStoppedWhileReading() async throws {
        let server = try await TestServer.hostile()
        var options = CallOptions()
        options.maxBodyBytes = 4 * 1024 * 1024
        let (error, elapsed) = await failure {
            try await manager().resource(from: server.url("/huge?mb=50"), options: options)
        }
        #expect(error?.code == .limitExceeded, "\(String(describing: error))")
        #expect(error?.underlying is ResponseBodyTooLargeError)
        #expect(elapsed < .seconds(30))
    }

    @Test func aBodyThatNeverEndsIsStoppedAtTheLimit() async throws {
        let server = try await TestServer.hostile()
        var options = CallOptions()
        options.maxBodyBytes = 2 * 1024 * 1024
        let (error, elapsed) = await failure {
            try await manager().resource(from: server.url("/endless"), options: options)
        }
        #expect(error?.code == .limitExceeded, "\(String(describing: error))")
        #expect(elapsed < .seconds(30))
    }

    @Test func aServerThatAcceptsAndNeverAnswersTimesOut() async throws {
        let server = try await TestServer.hostile()
        let (error, elapsed) = await failure {
            try await manager { $0.requestTimeout = .milliseconds(500) }.resource(from: server.url("/hang"))
        }
        #expect(error?.code == .timeout, "\(String(describing: error)) \(String(describing: error?.underlying))")
        #expect(elapsed >= .milliseconds(400), "the timeout is not cut short")
        #expect(elapsed < .seconds(30))
    }

    @Test func aSubSecondTimeoutLetsAFasterAnswerThrough() async throws {
        // FoundationNetworking truncates timeouts to whole seconds; 0.8 s must not mean 0.
        let server = try await TestServer.shared()
        let manager = manager { $0.requestTimeout = .milliseconds(800) }
        // Run again when this process stood still long enough to miss the limit (StallMonitor).
        let value = try await StallMonitor.retryingStalls(tolerance: .milliseconds(80)) {
            try await manager.resource(from: server.url("/slow?ms=200"))
        }
        #expect(value["slept"] == 200)
    }

    @Test func aRedirectLoopEnds() async throws {
        let server = try await TestServer.hostile()
        let (error, elapsed) = await failure { try await manager().resource(from: server.url("/loop")) }
        #expect(error != nil)
        #expect([HalleyError.Code.transport, .http].contains(error?.code), "\(String(describing: error))")
        #expect(elapsed < .seconds(30))
    }

    @Test func aLinkToAnotherOriginNeverGetsTheToken() async throws {
        let first = try await TestServer.shared()
        let second = try await TestServer.secondary()
        let tag = UUID().uuidString
        let target = second.url("/echo-headers?tag=\(tag)")
        let document = try await manager { $0.headers = ["Authorization": "Bearer secret"] }
            .resource(from: first.linkTo(target), includes: ["other"])
        #expect(document["other"]?["headers"]?["authorization"] == nil)
        #expect(document["other"]?["headers"]?["accept"]?.stringValue?.contains("application/hal+json") == true)
    }
}
