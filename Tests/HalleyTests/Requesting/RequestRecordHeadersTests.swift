import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `RequestRecord.requestHeaders` (issue #38, what `halley -v` prints as `> ` lines): the
/// fields each request was handed to the requester with, in every event of it.
@Suite struct RequestRecordHeadersTests {
    @Test func startedAndFinishedRecordsCarryTheHeadersSent() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/a")
        let log = EventLog()
        var options = log.options
        options.headers = ["Authorization": "Bearer secret"]
        _ = try await ResourceManager(requester: requester).resource(from: Graph.url("/a"), options: options)
        let sent = try #require(await requester.requests.first?.headers)
        let records = log.all.compactMap { event -> RequestRecord? in
            switch event {
            case .requestStarted(let record), .requestFinished(let record): record
            default: nil
            }
        }
        #expect(records.count == 2)
        #expect(records.allSatisfy { $0.requestHeaders == sent }, "\(records)")
        #expect(sent["User-Agent"] == HalleyVersion.userAgent && sent["Authorization"] == "Bearer secret")
        // A log line never shows them.
        #expect(log.all.allSatisfy { !$0.description.contains("secret") })
    }

    @Test func aFailedRequestsRecordCarriesThemToo() async throws {
        let log = EventLog()
        await #expect(throws: HalleyError.self) {
            _ = try await ResourceManager(requester: InMemoryRequester()).resource(
                from: Graph.url("/nowhere"), options: log.options)
        }
        #expect(log.finished.first?.requestHeaders?["Accept"]?.hasPrefix("application/hal+json") == true)
    }
}
