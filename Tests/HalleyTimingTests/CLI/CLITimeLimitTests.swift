import Foundation
import Halley
import HalleyTestSupport
import Testing

/// `--timeout` and `--deadline` over real HTTP: the test server's `/slow?ms=N` answers late.
///
/// The slow answers take 20 s, the limits well under a second, and the runner gives up after
/// 15 s: a limit that does not work fails the test instead of passing late.
@Suite struct CLITimeLimitTests {
    let id = UUID().uuidString

    @Test func anAttemptPastTimeoutExitsFour() async throws {
        let server = try await TestServer.shared()
        let url = server.url("/slow?ms=20000&id=\(id)").absoluteString
        let result = try await CLIRunner.run(["get", url, "--timeout", "0.5"])
        // The engine's limit and the requester's own (given the same value) race: either says so.
        CLIExpect.failure(
            result, status: 4,
            containing: ["within 500 ms, the time allowed for each attempt; allow more with --timeout"])
    }

    @Test func timeoutIsPerAttempt() async throws {
        let server = try await TestServer.shared()
        let url = server.url("/slow?ms=20000&id=\(id)").absoluteString
        let result = try await CLIRunner.run(["links", url, "--timeout", "0.3", "--retries", "1"])
        CLIExpect.failure(result, status: 4, containing: ["the time allowed for each attempt", "after 2 attempts"])
        #expect(result.stderrLines.first?.hasPrefix("halley: note: retrying \(url) (attempt 2)") == true, "\(result)")
        #expect(try await server.requests(containing: id).count == 2)
    }

    @Test func theCommandPastDeadlineExitsFour() async throws {
        let server = try await TestServer.shared()
        let url = server.url("/slow?ms=20000&id=\(id)").absoluteString
        let result = try await CLIRunner.run(["get", url, "--deadline", "0.5", "--retries", "3"])
        CLIExpect.failure(
            result, status: 4,
            containing: ["the whole call ran out of its 500 ms deadline with 1 request pending: \(url)", "--deadline"])
    }

    /// `send --rel` makes two calls (fetch the resource, then act on its link); the deadline
    /// covers both. Each alone fits in it (2 s and 3 s against 4 s), together they do not.
    @Test func theDeadlineCoversEveryCallOfACommand() async throws {
        let server = try await TestServer.shared()
        let action = server.url("/echo/\(id)?ms=3000")
        let resource = server.url("/slow?ms=2000&to=" + TestServer.queryValue(action.absoluteString))
        let result = try await CLIRunner.run([
            "send", "POST", resource.absoluteString, "--rel", "other", "--deadline", "4",
        ])
        CLIExpect.failure(result, status: 4, containing: ["deadline", "pending: \(action.absoluteString)"])
        #expect(!result.stderrLines.contains { $0.contains("its 4 s deadline") }, "\(result)")
    }
}
