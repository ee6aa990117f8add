import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Eviction under a full cache or store: a speed check, so apart from the unit tests.
@Suite struct EvictionScalingTests {
    /// A full cache evicts for every new entry; finding the least recently used one must not
    /// read every entry (the old code did: 40,000 entries through a cache holding 4,000 read
    /// about 140 million, tens of seconds in a debug build).
    @Test(.timeLimit(.minutes(2))) func aFullCacheEvictsWithoutReadingEveryEntry() {
        // 289 bytes per entry (body 10, headers 23, fixed 256): 4,000 fit.
        let cache = ResponseCache(maximumBytes: 4_000 * 289)
        let body = Data(repeating: 1, count: 10)
        let clock = ContinuousClock()
        let start = clock.now
        for index in 0..<40_000 {
            let url = Graph.url("/\(index)")
            cache.store(
                ResourceResponse(headers: ["Cache-Control": "max-age=60"], url: url, body: body),
                for: ResourceRequest(url: url))
        }
        let elapsed = clock.now - start
        #expect(cache.count == 4_000)
        #expect(cache.lookup(ResourceRequest(url: Graph.url("/35999"))) == nil)
        #expect(cache.lookup(ResourceRequest(url: Graph.url("/36000"))) != nil)
        // A few seconds at most in a debug build on a loaded machine.
        #expect(elapsed < .seconds(10), "took \(elapsed)")
    }
}
