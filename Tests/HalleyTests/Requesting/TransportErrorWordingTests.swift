import Foundation
import Testing

@testable import Halley

/// How a transport error words the limit it ran out of.
@Suite struct TransportErrorWordingTests {
    let url = URL(string: "https://api.example.com/a")!

    @Test func aTimeoutNamesItsLimitAsPeopleSayIt() {
        for (limit, words) in [
            (Duration.milliseconds(250), "250 ms"), (.seconds(2), "2 s"), (.milliseconds(1_500), "1.5 s"),
        ] {
            let error = TransportError(code: .timedOut, url: url, limit: limit)
            #expect(error.description == "no response from api.example.com within \(words)")
        }
    }

    /// A limit meaning "none" can still be named when a connection times out under it: in
    /// seconds, where its milliseconds would overflow (a trap).
    @Test func aLimitTooLongForMillisecondsIsNamedInSeconds() {
        let error = TransportError(code: .timedOut, url: url, limit: .seconds(Int64.max))
        #expect(error.description == "no response from api.example.com within 9223372036854775807 s")
    }
}
