import Foundation
import HalleyTestSupport
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
