import Foundation
import Testing

@testable import HalleyHAL

@Suite struct HeaderFieldsTests {
    @Test func laterPairsReplaceEarlierOnesInTheirPlace() {
        let headers = HeaderFields([("Accept", "a"), ("X-One", "1"), ("accept", "b"), ("X-Two", "2")])
        #expect(headers.fields.map(\.name) == ["accept", "X-One", "X-Two"])
        #expect(headers["ACCEPT"] == "b")
        #expect(headers["x-one"] == "1")
    }

    @Test func mergeReplacesInPlaceAndAppendsNewNames() {
        var headers: HeaderFields = ["Accept": "a", "Authorization": "x"]
        headers.merge(["authorization": "y", "X-New": "n"])
        #expect(headers.fields.map(\.name) == ["Accept", "authorization", "X-New"])
        #expect(headers["Authorization"] == "y")
        headers.merge([:])
        #expect(headers.fields.count == 3)
    }

    @Test func nonASCIINamesAreComparedExactly() {
        let headers = HeaderFields([("Ä", "1"), ("ä", "2")])
        #expect(headers.fields.count == 2)
    }
}
