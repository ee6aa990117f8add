import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Eviction under a full cache or store: a speed check, so apart from the unit tests.
@Suite struct EvictionScalingTests {
    /// Stores `count` responses in a cache that holds a tenth of them (so nine in ten stores
    /// evict) and returns the time per store.
    private func timePerStore(_ count: Int) -> Duration {
        // 289 bytes per entry (body 10, headers 23, fixed 256).
        let cache = ResponseCache(maximumBytes: count / 10 * 289)
        let body = Data(repeating: 1, count: 10)
        let clock = ContinuousClock()
        let start = clock.now
        for index in 0..<count {
            let url = Graph.url("/\(index)")
            cache.store(
                ResourceResponse(headers: ["Cache-Control": "max-age=60"], url: url, body: body),
                for: ResourceRequest(url: url))
        }
        let elapsed = clock.now - start
        #expect(cache.count == count / 10)
        #expect(cache.lookup(ResourceRequest(url: Graph.url("/\(count - count / 10 - 1)"))) == nil)
        #expect(cache.lookup(ResourceRequest(url: Graph.url("/\(count - count / 10)"))) != nil)
        return elapsed / count
    }

    /// A full cache evicts for every new entry; finding the least recently used one must not
    /// read every entry. The old code did, so ten times the entries cost several times as much
    /// per store (20,000 through a cache of 2,000 took 16 s in a debug build; now 1 s, the same
    /// per store as at 2,000). Compared as a ratio of two sizes in one process, so a machine's
    /// load or a sanitizer slows both alike.
    @Test(.timeLimit(.minutes(2))) func aFullCacheEvictsWithoutReadingEveryEntry() {
        let small = min(timePerStore(2_000), timePerStore(2_000))
        let large = min(timePerStore(20_000), timePerStore(20_000))
        #expect(large < small * 3, "per store: \(small) for 2,000 entries, \(large) for 20,000")
    }
}
