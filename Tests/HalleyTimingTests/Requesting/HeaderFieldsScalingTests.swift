import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `HeaderFields` at scale: a speed check, so apart from the unit tests.
@Suite struct HeaderFieldsScalingTests {
    /// A server can send tens of thousands of header fields; building and merging them must
    /// be linear (the old code scanned every earlier field for each one: 30,000 took 20 s).
    @Test(.timeLimit(.minutes(1))) func thirtyThousandFieldsAreLinear() {
        let pairs = (0..<30_000).map { ("X-Field-\($0)", "\($0)") }
        let clock = ContinuousClock()
        let start = clock.now
        var headers = HeaderFields(pairs)
        headers.merge(HeaderFields(pairs.map { ($0.0.uppercased(), "again") }))
        let elapsed = clock.now - start
        #expect(headers.fields.count == 30_000)
        #expect(headers["x-field-29999"] == "again")
        // Linear takes a fraction of a second even in a debug build on a loaded machine.
        #expect(elapsed < .seconds(10), "took \(elapsed)")
    }
}
