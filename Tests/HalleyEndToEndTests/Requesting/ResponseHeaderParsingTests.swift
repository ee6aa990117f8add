import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// How `CurlRequester` reads response header fields: repeated names (any case) combined in
/// order with `", "` in the first one's place and spelling, obsolete folding undone,
/// whitespace around values dropped, UTF-8 where valid and Latin-1 otherwise, however many
/// fields come before a repeat.
@Suite struct ResponseHeaderParsingTests {
    @Test func fieldsAreCombinedUnfoldedAndDecoded() async throws {
        let server = try await TestServer.hostileHTTP()
        let response = try await CurlRequester().response(
            for: ResourceRequest(url: server.url("/header-shapes"), timeout: .seconds(10)))
        #expect(response.status == 200)
        let fields = response.headers.fields
        let names = fields.map(\.name)
        #expect(names.prefix(5) == ["X-Repeat", "X-Folded", "X-Latin", "X-Utf8", "X-Spaces"], "\(names)")
        #expect(names.count == 5 + 30 + 2, "\(names)")
        #expect(response.headers["x-repeat"] == "one, two, three")
        #expect(response.headers["X-Folded"] == "first second third")
        #expect(response.headers["X-Latin"] == "caf\u{E9}")
        #expect(response.headers["X-Utf8"] == "caf\u{E9}")
        #expect(response.headers["X-Spaces"] == "padded")
        #expect(response.headers["X-Field-3"] == "3, again")
        // The line folded under the repeat of X-Field-27 belongs to it, not to the last new
        // field above it (X-Field-29), where the parser once put it.
        #expect(response.headers["x-field-27"] == "27, again continued")
        #expect(response.headers["X-Field-29"] == "29")
        #expect(fields.first { $0.name == "X-Field-27" }?.value == "27, again continued")
    }

    /// The fields are the final response's: an interim response's are dropped with it (and do
    /// not count against the limit), a chunked body's trailer fields are not among them.
    @Test func interimResponsesAndTrailersAreNotTheFields() async throws {
        let server = try await TestServer.hostileHTTP()
        // Exactly the final response's four fields: the interim's two or the trailer would
        // pass the limit.
        let response = try await CurlRequester(maxHeaderCount: 4).response(
            for: ResourceRequest(url: server.url("/interim-and-trailers"), timeout: .seconds(10)))
        #expect(response.status == 200)
        let names = response.headers.fields.map(\.name)
        #expect(names == ["Content-Type", "Transfer-Encoding", "Trailer", "X-Final"], "\(names)")
        #expect(String(decoding: response.body, as: UTF8.self).contains("/interim-and-trailers"))
    }
}
