import Foundation
import Halley
import HalleyTestSupport
import Testing

/// `halley get` over real HTTP, against the loopback test server (`HalleyTestSupport/TestServer.swift`):
/// where `--header` goes, and HTTP failures. Only the server's built-in routes are used
/// (`/echo-headers`, `/link-to`, `/redirect`, `/status/<code>`, `/not-json`), not its
/// fixture documents.
@Suite struct CLINetworkTests {
    /// A fresh header value per test, so concurrent tests never see each other's.
    let secret = "k-" + UUID().uuidString

    /// The headers `/echo-headers` reported, at `key` of the output (`nil` for the root).
    func echoedHeaders(_ result: CLIResult, at key: String? = nil, sourceLocation: SourceLocation = #_sourceLocation)
        throws -> JSONObject
    {
        let json = try result.json(sourceLocation: sourceLocation)
        let document = key.map { json[$0] } ?? json
        return try #require(
            document?["headers"]?.objectValue, "no echoed headers: \(result)",
            sourceLocation: sourceLocation)
    }

    @Test func headersReachTheRootOrigin() async throws {
        let server = try await TestServer.shared()
        let result = try await CLIRunner.run([
            "get", server.url("/echo-headers").absoluteString,
            "--header", "X-Api-Key: \(secret)", "--header", "Authorization: Bearer \(secret)",
        ])
        #expect(result.status == 0, "\(result)")
        let headers = try echoedHeaders(result)
        #expect(headers["x-api-key"]?.stringValue == secret)
        #expect(headers["authorization"]?.stringValue == "Bearer \(secret)")
    }

    @Test func headersNeverReachAnotherOriginTheDocumentLinksTo() async throws {
        let server = try await TestServer.shared()
        let other = try await TestServer.secondary()
        let root = server.linkTo(other.url("/echo-headers"))
        let result = try await CLIRunner.run([
            "get", root.absoluteString, "--include", "other",
            "--header", "X-Api-Key: \(secret)", "--header", "Authorization: Bearer \(secret)",
        ])
        #expect(result.status == 0, "\(result)")
        let headers = try echoedHeaders(result, at: "other")
        #expect(headers["x-api-key"] == nil, "\(result)")
        #expect(headers["authorization"] == nil, "\(result)")
        #expect(!result.stdout.contains(secret))
    }

    @Test func allowOriginTrustsThatOriginWithTheHeaders() async throws {
        let server = try await TestServer.shared()
        let other = try await TestServer.secondary()
        let root = server.linkTo(other.url("/echo-headers"))
        let result = try await CLIRunner.run([
            "get", root.absoluteString, "--include", "other", "--header", "X-Api-Key: \(secret)",
            "--allow-origin", other.baseURL.absoluteString,
        ])
        #expect(result.status == 0, "\(result)")
        #expect(try echoedHeaders(result, at: "other")["x-api-key"]?.stringValue == secret)
    }

    @Test func aRedirectToAnotherOriginDropsTheHeaders() async throws {
        let server = try await TestServer.shared()
        let other = try await TestServer.secondary()
        let root = server.redirect(to: other.url("/echo-headers").absoluteString)
        let result = try await CLIRunner.run(["get", root.absoluteString, "--header", "X-Api-Key: \(secret)"])
        #expect(result.status == 0, "\(result)")
        #expect(try echoedHeaders(result)["x-api-key"] == nil, "\(result)")
    }

    @Test func serverErrorExitsOneWithOneLine() async throws {
        let server = try await TestServer.shared()
        let url = server.url("/status/500").absoluteString
        let result = try await CLIRunner.run(["get", url])
        CLIExpect.failure(
            result, status: 1, containing: ["HTTP 500 Internal Server Error: requested /status/500 (URL \(url))"])
        #expect(result.stderrLines.count == 1)
    }

    @Test func nestedServerErrorFailsUnlessPartialResultsAreAllowed() async throws {
        let server = try await TestServer.shared()
        let failing = server.url("/status/500")
        let root = server.linkTo(failing).absoluteString
        let strict = try await CLIRunner.run(["get", root, "--include", "other"])
        CLIExpect.failure(strict, status: 1, containing: ["HTTP 500", "include path \"other\""])

        let partial = try await CLIRunner.run(["get", root, "--include", "other", "--allow-partial"])
        #expect(partial.status == 0, "\(partial)")
        #expect(try partial.json()["other"] == nil)
        #expect(partial.stderrLines.count == 1)
        #expect(
            partial.stderrLines.first?.hasPrefix(
                "halley: partial: include path \"other\", URL \(failing.absoluteString): HTTP 500") == true,
            "\(partial)")
    }

    @Test func htmlInsteadOfJSONExitsThree() async throws {
        let server = try await TestServer.shared()
        let result = try await CLIRunner.run(["get", server.url("/not-json").absoluteString])
        CLIExpect.failure(result, status: 3, containing: ["invalid JSON"])
    }

    @Test func connectionRefusedExitsOne() async throws {
        // Port 1 (tcpmux) has no listener on a loopback test machine: the connection is refused.
        let result = try await CLIRunner.run(["get", "http://127.0.0.1:1/", "--trace"])
        CLIExpect.failure(
            result, status: 1,
            containing: [
                "halley: 127.0.0.1:1 refused the connection; check that the server is running and listens on that port"
            ])
        #expect(
            result.stderrLines.contains { $0.hasPrefix("trace: GET http://127.0.0.1:1/ status=failed bytes=0 ") },
            "\(result)")
    }

    @Test func traceShowsRealRequests() async throws {
        let server = try await TestServer.shared()
        let root = server.linkTo(server.url("/echo-headers")).absoluteString
        let result = try await CLIRunner.run(["get", root, "--include", "other", "--trace"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stderrLines.filter { $0.hasPrefix("trace: GET ") }
        #expect(lines.count == 2, "\(result)")
        #expect(lines.allSatisfy { $0.contains(" status=200 ") })
        #expect(lines.contains { $0.hasSuffix(" include=other") && $0.contains("/echo-headers ") })
    }
}
