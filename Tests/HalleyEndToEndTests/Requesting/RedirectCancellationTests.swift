import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Found by the reliability suites (issue #19): FoundationNetworking traps ("Received callback
/// for HTTP redirection, but we're not waiting for it") when a task's redirect is answered
/// after the task was cancelled, which a fail-fast traversal does all the time. Requests that
/// are redirected and cancelled around the redirect must end with a cancellation or an
/// answer, never a crash of the process.
@Suite struct RedirectCancellationTests {
    @Test(arguments: Transport.allCases)
    func cancellingRequestsAroundTheirRedirectNeverCrashes(transport: Transport) async throws {
        let server = try await TestServer.hostileHTTP()
        let requester: any RequesterInterface & Sendable =
            transport == .curl ? try CurlRequester() : URLSessionRequester()
        let url = server.url("/redirect?status=302&to=" + TestServer.queryValue("/slow?ms=20"))
        let rounds = Sanitizer.isActive ? 200 : 1_000
        var generator = SeededGenerator(seed: 19)
        var cancelled = 0
        for round in 0..<rounds {
            // The redirect arrives within about a millisecond on loopback: cancel around it.
            let delay = Duration.microseconds(Int.random(in: 0...3_000, using: &generator))
            let request = Task { try await requester.response(for: ResourceRequest(url: url, timeout: .seconds(30))) }
            try await Task.sleep(for: delay)
            request.cancel()
            switch await request.result {
            case .success(let response):
                #expect(response.status == 200, "round \(round)")
            case .failure(let error):
                #expect(error is CancellationError, "round \(round): \(error)")
                cancelled += 1
            }
        }
        #expect(cancelled > 0, "no request was cancelled: the test proves nothing")
    }
}
