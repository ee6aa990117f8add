import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// HTTP errors read `HTTP 404 Not Found (URL …)`, with a short excerpt only of a text body,
/// on one line (issue #28); the body itself stays on the error.
@Suite struct HTTPErrorMessageTests {
    static let url = URL(string: "https://api.example.com/orders/9")!

    /// The call's error for a response of `status` with this body.
    func failure(status: Int, contentType: String?, body: Data) async throws -> HalleyError {
        let requester = InMemoryRequester()
        var headers: HeaderFields = [:]
        if let contentType { headers["Content-Type"] = contentType }
        await requester.register(
            Self.url.absoluteString, InMemoryRequester.Route(status: status, headers: headers, body: body))
        do {
            _ = try await ResourceManager(requester: requester).resource(from: Self.url)
        } catch let error as HalleyError {
            return error
        }
        throw CancellationError()
    }

    /// nginx's own error page, CR LF line ends included.
    static func nginxPage(_ status: String) -> Data {
        Data(
            ("<html>\r\n<head><title>\(status)</title></head>\r\n<body>\r\n<center><h1>\(status)</h1></center>\r\n"
                + "<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n").utf8)
    }

    @Test func anHTMLErrorPageIsLeftOutWhenItsTitleRepeatsTheStatus() async throws {
        for (status, title, reason) in [
            (404, "404 Not Found", "Not Found"), (405, "405 Not Allowed", "Method Not Allowed"),
        ] {
            let page = Self.nginxPage(title)
            let error = try await failure(status: status, contentType: "text/html", body: page)
            let http = try #require(error.httpError)
            let expected = status == 404 ? "HTTP 404 Not Found" : "HTTP 405 Method Not Allowed: 405 Not Allowed"
            #expect(error.message == expected, "\(reason)")
            #expect(error.description == "\(expected) (URL \(Self.url.absoluteString))")
            #expect(http.description == error.description)
            #expect(http.body == page, "the body stays on the error")
            #expect(!error.localizedDescription.contains("<"))
        }
    }

    @Test func anHTMLPageIsReducedToItsTitle() async throws {
        let page = Data(
            "<!DOCTYPE html>\n<html><head>\n  <title>\n Order &amp; stock\r\n service</title>\n</head><body>…</body>"
                .utf8)
        let error = try await failure(status: 503, contentType: "text/html; charset=utf-8", body: page)
        #expect(error.message == "HTTP 503 Service Unavailable: Order & stock service")
        // Without a title, the page is left out entirely.
        let untitled = try await failure(status: 502, contentType: "text/html", body: Data("<p>bad</p>".utf8))
        #expect(untitled.message == "HTTP 502 Bad Gateway")
    }

    @Test func aPlainTextBodyIsAShortExcerptOnOneLine() async throws {
        let text = Data("line one\r\nline two\u{1B}[31m red\ttab\n".utf8)
        let error = try await failure(status: 400, contentType: "text/plain", body: text)
        #expect(error.message == "HTTP 400 Bad Request: line one line two [31m red tab")
        #expect(!error.localizedDescription.unicodeScalars.contains { $0.value < 0x20 })

        let long = Data(String(repeating: "word ", count: 200).utf8)
        let cut = try await failure(status: 500, contentType: "text/plain", body: long)
        #expect(cut.message.hasSuffix("…"))
        #expect(cut.message.count < 200, "\(cut.message.count) characters")
    }

    @Test func jsonAndProblemDetailsAreSummarised() async throws {
        let json = try await failure(
            status: 409, contentType: "application/json", body: Data("{\n  \"error\": \"out of stock\"\n}".utf8))
        #expect(json.message == #"HTTP 409 Conflict: { "error": "out of stock" }"#)

        let problem = try await failure(
            status: 404, contentType: "application/problem+json",
            body: Data(#"{"title": "Not Found", "detail": "Order 9\r\nwas deleted"}"#.utf8))
        #expect(problem.message == "HTTP 404 Not Found: Order 9 was deleted")
        #expect(problem.httpError?.problem?.detail == "Order 9\r\nwas deleted")
    }

    @Test func aBinaryBodyIsLeftOut() async throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0xFF, 0xFE, 0x00, 0x01])
        let error = try await failure(status: 415, contentType: "image/png", body: png)
        #expect(error.message == "HTTP 415 Unsupported Media Type")
        let unlabelled = try await failure(status: 500, contentType: nil, body: png)
        #expect(unlabelled.message == "HTTP 500 Internal Server Error")
    }

    /// The real thing: nginx's 404 and 405 pages through both requesters and the tool.
    @Test func nginxErrorPagesReadAsTheirStatus() async throws {
        let nginx = try await TLSLab.nginx()
        for transport in Transport.allCases {
            let manager = ResourceManager(requester: try transport.make())
            let missing = nginx.http("/nowhere")
            do {
                _ = try await manager.resource(from: missing)
                Issue.record("nginx answered /nowhere")
            } catch let error as HalleyError {
                #expect(error.description == "HTTP 404 Not Found (URL \(missing.absoluteString))")
            }
            do {
                _ = try await manager.send(.post, to: nginx.http("/items/1"), body: .json(["x": 1]))
                Issue.record("nginx took a POST to a file")
            } catch let error as HalleyError {
                #expect(
                    error.description
                        == "HTTP 405 Method Not Allowed: 405 Not Allowed (URL \(nginx.http("/items/1").absoluteString))"
                )
            }
        }
        let result = try await CLIRunner.run(["get", nginx.http("/nowhere").absoluteString])
        #expect(result.status == 1)
        #expect(result.stderrLines == ["halley: HTTP 404 Not Found (URL \(nginx.http("/nowhere").absoluteString))"])
    }
}
