import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Cancelling a `CurlRequester` transfer ends it at once, and the requester stays usable.
@Suite struct CurlCancellationTests {
    @Test(.timeLimit(.minutes(1))) func cancellingTheCallingTaskCancelsTheTransferAtOnce() async throws {
        let server = try await TestServer.hostileHTTP()
        let requester = try CurlRequester()
        let clock = ContinuousClock()
        let call = Task { try await requester.response(for: ResourceRequest(url: server.url("/slow?ms=5000"))) }
        try await Task.sleep(for: .milliseconds(200))
        let cancelled = clock.now
        call.cancel()
        let result = await call.result
        let elapsed = clock.now - cancelled
        #expect(throws: CancellationError.self) { try result.get() }
        // Milliseconds when the machine is idle; generous for a loaded one.
        #expect(elapsed < .seconds(5), "cancellation took \(elapsed)")
        // The requester is still usable.
        #expect(try await requester.response(for: ResourceRequest(url: server.url("/small"))).status == 200)
    }
}
