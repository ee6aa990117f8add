import Foundation
import Halley
import HalleyTestSupport
import Testing

/// The tool as curl users expect it (issue #38): its own `User-Agent`, a URL without a scheme
/// read as `http://`, an unsupported scheme named as such, and `-v`'s `> ` request lines;
/// against the loopback test server.
@Suite struct CLICurlHabitsTests {
    /// A marker no other request contains.
    func marker() -> String { "cli" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }

    /// The `User-Agent` of each request whose target holds `tag`, as the server recorded it.
    func agents(_ server: TestServer, _ tag: String) async throws -> [String?] {
        try await server.requests(containing: tag).map { $0.headers["user-agent"] }
    }

    @Test func theToolSendsItsOwnAgentUnlessAHeaderGivesOne() async throws {
        let server = try await TestServer.shared()
        let tag = marker()
        let other = try await TestServer.secondary()
        let root = server.linkTo(other.url("/echo-headers?tag=\(tag)")).absoluteString
        let plain = try await CLIRunner.run(["get", root, "--include", "other"])
        #expect(plain.status == 0, "\(plain)")
        #expect(try await agents(server, tag) == ["halley/\(HalleyVersion.current)"])
        #expect(try await agents(other, tag) == ["halley/\(HalleyVersion.current)"], "the other origin gets it too")

        let named = try await CLIRunner.run([
            "get", server.url("/echo-headers?tag=\(tag)&named").absoluteString, "-H", "User-Agent: probe/1",
        ])
        #expect(named.status == 0, "\(named)")
        #expect(try named.json()["headers"]?["user-agent"] == "probe/1")
    }

    @Test func aURLWithoutASchemeIsHTTP() async throws {
        let server = try await TestServer.shared()
        let tag = marker()
        let bare = "\(server.host):\(server.port)/echo-headers?tag=\(tag)"
        let result = try await CLIRunner.run(["get", bare, "--compact", "--trace"])
        #expect(result.status == 0, "\(result)")
        #expect(try result.json()["_links"]?["self"]?["href"] == "/echo-headers")
        #expect(result.stderrLines.first?.hasPrefix("trace: GET http://\(bare) status=200 ") == true, "\(result)")
        // `links` and the other commands read their URL the same way.
        let links = try await CLIRunner.run(["links", "\(server.host):\(server.port)/echo-headers"])
        #expect(links.status == 0, "\(links)")
        #expect(links.stdout.contains("/echo-headers"), "\(links)")
    }

    @Test func anUnsupportedSchemeIsNamedAsTheURLsScheme() async throws {
        let result = try await CLIRunner.run(["get", "htp://127.0.0.1:1/"])
        CLIExpect.failure(
            result, status: 3,
            containing: ["the URL's scheme \"htp\" is not supported", "http and https", "URL htp://127.0.0.1:1/"])
        #expect(!result.stderr.contains("links with the scheme"), "\(result)")
        // With --fixtures, the files' requester names its own schemes.
        let fixtures = try await CLIRunner.run(["get", "--fixtures", CLIRunner.fixtures, "ftp://api.example.com/"])
        CLIExpect.failure(fixtures, status: 3, containing: ["the URL's scheme \"ftp\" is not supported"])
    }

    @Test func verbosePrintsEachRequestsLineAndHeaders() async throws {
        let server = try await TestServer.shared()
        let tag = marker()
        let target = "/echo-headers?tag=\(tag)"
        let url = server.url(target).absoluteString
        let result = try await CLIRunner.run(["get", url, "-v", "-H", "X-Api-Key: \(tag)"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stderrLines
        let trace = try #require(lines.firstIndex { $0.hasPrefix("trace: GET \(url) ") }, "\(result)")
        #expect(lines[trace + 1].hasPrefix("trace:   "), "the connection line first: \(result)")
        let request = Array(lines[(trace + 2)...].prefix { $0.hasPrefix("> ") })
        let version = try #require(request.first?.wholeMatch(of: #/> GET (\S+) (HTTP/[0-9.]+)/#), "\(result)")
        #expect(version.1 == target)
        #expect(request.contains("> Host: \(server.host):\(server.port)"), "\(request)")
        #expect(request.contains("> Accept: application/hal+json, application/json;q=0.9, */*;q=0.1"), "\(request)")
        #expect(request.contains("> User-Agent: halley/\(HalleyVersion.current)"), "\(request)")
        #expect(request.contains("> X-Api-Key: \(tag)"), "\(request)")
        // Every field sent is one the server received.
        let received = try #require(try await server.requests(containing: tag).first)
        for line in request.dropFirst() {
            let name = String(line.dropFirst(2).prefix { $0 != ":" }).lowercased()
            #expect(received.headers[name] != nil, "\(name) was printed but not received: \(received.headers)")
        }
        // Without -v, no request lines.
        let quiet = try await CLIRunner.run(["get", url, "--trace"])
        #expect(!quiet.stderrLines.contains { $0.hasPrefix("> ") }, "\(quiet)")
    }
}
