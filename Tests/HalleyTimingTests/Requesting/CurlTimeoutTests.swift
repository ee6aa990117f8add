import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `CurlRequester`'s time limit against the loopback hostile server: on its own and under the
/// engine, which trusts libcurl with the per-attempt limit.
@Suite struct CurlTimeoutTests {
    private func manager(_ configure: (inout ResourceManager.Configuration) -> Void = { _ in }) throws
        -> ResourceManager
    { .over(try CurlRequester(), configure: configure) }

    @Test(.timeLimit(.minutes(1))) func theRequestTimeoutIsHonoured() async throws {
        let server = try await TestServer.hostileHTTP()
        let clock = ContinuousClock()
        let start = clock.now
        await #expect {
            _ = try await CurlRequester().response(
                for: ResourceRequest(url: server.url("/slow?ms=5000"), timeout: .milliseconds(300)))
        } throws: { ($0 as? TransportError)?.code == .timedOut }
        let elapsed = clock.now - start
        #expect(elapsed >= .milliseconds(250))
        #expect(elapsed < .seconds(3), "took \(elapsed)")
    }

    /// The engine trusts libcurl with the per-attempt limit (no watchdog of its own), so
    /// libcurl's timeout is what ends the attempt, reported as the limit it is.
    @Test func theEngineTurnsACurlTimeoutIntoATimeout() async throws {
        let server = try await TestServer.hostileHTTP()
        #expect(try CurlRequester().enforcesRequestTimeout)
        // The answer would come after 5 s and succeed: only a timeout at the limit throws.
        await #expect {
            _ = try await manager { $0.requestTimeout = .milliseconds(300) }.resource(from: server.url("/slow?ms=5000"))
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .timeout && error.transportError?.code == .timedOut
                && error.message.contains("within 300 ms, the time allowed for each attempt")
        }
    }
}
