import Foundation
import Halley
import HalleyTestSupport
import Testing

/// `--retries` over real HTTP: the test server's `/flaky?id=I&failures=N` fails N times (503)
/// before answering. (`--timeout` and `--deadline` are `CLITimeLimitTests`, in
/// HalleyTimingTests.)
@Suite struct CLIPolicyTests {
    let id = UUID().uuidString

    @Test func retriesRecoverFromAFailure() async throws {
        let server = try await TestServer.shared()
        let url = server.url("/flaky?id=\(id)&failures=1").absoluteString
        let result = try await CLIRunner.run(["get", url, "--retries", "1"])
        #expect(result.status == 0, "\(result)")
        #expect(try result.json()["_links"]?["self"]?["href"]?.stringValue == "/flaky")
        #expect(
            result.stderrLines.count == 1
                && result.stderrLines[0].hasPrefix("halley: note: retrying \(url) (attempt 2) in ")
                && result.stderrLines[0].hasSuffix(": HTTP 503"), "\(result)")
        #expect(try await server.requests(containing: id).count == 2)
    }

    @Test func withoutRetriesOneFailureFails() async throws {
        let server = try await TestServer.shared()
        let url = server.url("/flaky?id=\(id)&failures=1").absoluteString
        let result = try await CLIRunner.run(["get", url])
        CLIExpect.failure(result, status: 1, containing: ["HTTP 503"])
        #expect(try await server.requests(containing: id).count == 1)
    }

    @Test func retriesStopAfterN() async throws {
        let server = try await TestServer.shared()
        let url = server.url("/flaky?id=\(id)&failures=5").absoluteString
        let result = try await CLIRunner.run(["forms", url, "--retries", "2"])
        CLIExpect.failure(result, status: 1, containing: ["HTTP 503", "after 3 attempts"])
        #expect(try await server.requests(containing: id).count == 3)
    }

    @Test func retriesApplyToTheFetchOfSendRel() async throws {
        let server = try await TestServer.shared()
        // /flaky answers a document without an `other` link once it recovers: the send then
        // fails for the missing relation, which proves the fetch was retried and succeeded.
        let url = server.url("/flaky?id=\(id)&failures=1").absoluteString
        let result = try await CLIRunner.run(["send", "POST", url, "--rel", "other", "--retries", "1"])
        CLIExpect.failure(result, status: 3, containing: ["other"])
        #expect(try await server.requests(containing: id).count == 2)
    }
}
