import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `HostileServerTests`' time limits over real HTTP: a server that never answers ends at the
/// attempt's limit, not before; a sub-second limit lets a faster answer through.
@Suite struct HostileServerTimeoutTests {
    private func manager(_ configure: (inout ResourceManager.Configuration) -> Void = { _ in }) -> ResourceManager {
        .over(DefaultRequester.make(), configure: configure)
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
}
