import Foundation
import Testing

@testable import Halley

@Suite struct HTTPHeadersTests {
    @Test func laterPairsReplaceEarlierOnesInTheirPlace() {
        let headers = HTTPHeaders([("Accept", "a"), ("X-One", "1"), ("accept", "b"), ("X-Two", "2")])
        #expect(headers.fields.map(\.name) == ["accept", "X-One", "X-Two"])
        #expect(headers["ACCEPT"] == "b")
        #expect(headers["x-one"] == "1")
    }

    @Test func mergeReplacesInPlaceAndAppendsNewNames() {
        var headers: HTTPHeaders = ["Accept": "a", "Authorization": "x"]
        headers.merge(["authorization": "y", "X-New": "n"])
        #expect(headers.fields.map(\.name) == ["Accept", "authorization", "X-New"])
        #expect(headers["Authorization"] == "y")
        headers.merge([:])
        #expect(headers.fields.count == 3)
    }

    @Test func nonASCIINamesAreComparedExactly() {
        let headers = HTTPHeaders([("Ä", "1"), ("ä", "2")])
        #expect(headers.fields.count == 2)
    }

    /// A server can send tens of thousands of header fields; building and merging them must
    /// be linear (the old code scanned every earlier field for each one: 30,000 took 20 s).
    @Test(.timeLimit(.minutes(1))) func thirtyThousandFieldsAreLinear() {
        let pairs = (0..<30_000).map { ("X-Field-\($0)", "\($0)") }
        let clock = ContinuousClock()
        let start = clock.now
        var headers = HTTPHeaders(pairs)
        headers.merge(HTTPHeaders(pairs.map { ($0.0.uppercased(), "again") }))
        let elapsed = clock.now - start
        #expect(headers.fields.count == 30_000)
        #expect(headers["x-field-29999"] == "again")
        // Linear takes a fraction of a second even in a debug build on a loaded machine.
        #expect(elapsed < .seconds(10), "took \(elapsed)")
    }
}
