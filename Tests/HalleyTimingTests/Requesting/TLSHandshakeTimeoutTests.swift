import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// A TLS handshake that stalls (the hostile TLS servers' `stall`) ends at the attempt's limit.
@Suite struct TLSHandshakeTimeoutTests {
    @Test func aHandshakeThatStallsEndsWithTheAttemptTimeout() async throws {
        let hostile = try await TLSLab.hostile()
        var configuration = ResourceManager.Configuration()
        configuration.policy.requestTimeout = .seconds(1)
        let manager = ResourceManager(requester: try CurlRequester(proxy: .direct), configuration: configuration)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try await manager.resource(from: try hostile.url("stall"))
            Issue.record("a stalled handshake answered")
        } catch let error as HalleyError {
            #expect(error.code == .timeout, "\(error)")
        }
        let elapsed = clock.now - start
        #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(2), "took \(elapsed)")
    }
}
