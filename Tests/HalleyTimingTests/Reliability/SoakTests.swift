import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

extension Reliability {
    /// Many requests through one long-lived manager, without a cache, with a small one that
    /// keeps evicting, and against faults: memory stays flat, every answer is right, and
    /// releasing the manager gives back its connections, descriptors and threads.
    @Suite struct SoakTests {
        /// Distinct URLs the soak cycles through (2,000 of about 1 KiB each, against a cache
        /// of 256 KiB in the cached run); every other request goes to one of the first
        /// ``hotURLs``, which the cache can keep.
        static let distinctURLs = 2_000
        static let hotURLs = 48
        static let cacheBytes = 256 * 1024
        /// Workers sharing the manager.
        static let workers = 8

        /// What the server answers: plain documents, cacheable ones (through a small cache), or
        /// the mixed profile's faults and redirects (7 % of the attempts fail, 5 % redirect).
        enum Load: String, CaseIterable, Sendable, CustomTestStringConvertible {
            case plain, cached, faulty

            var profile: ChaosServer.Profile {
                switch self {
                case .plain: .soak
                case .cached: .cacheable
                case .faulty: .faulty
                }
            }

            /// The name in figure lines.
            var label: String { self == .plain ? "soak" : "soak-\(rawValue)" }

            var testDescription: String { rawValue }
        }

        @Test(arguments: Transport.allCases, Load.allCases)
        func memoryStaysFlatAndEverythingIsGivenBack(transport: Transport, load: Load) async throws {
            let (scale, chaos, run) = try await Reliability.start()
            let total = scale.soakRequests
            // The control channel's own session and descriptors exist before the figures are taken.
            _ = try await chaos.stats(run: run)
            let before = (
                descriptors: ProcessFigures.openDescriptors, threads: ProcessFigures.threads,
                sockets: ProcessFigures.sockets(toPort: chaos.port),
                curlThreads: ProcessFigures.threads(named: "halley.curl"), heap: ProcessFigures.heapInUse ?? 0
            )
            let samples = LockedValue<[(rss: Int, heap: Int)]>([])
            let wrong = LockedValue<[String]>([])
            let failed = LockedValue(0)
            let clock = ContinuousClock()
            var elapsed: Duration = .zero
            var decileTimes: [Duration] = []
            do {
                var configuration = ResourceManager.Configuration()
                if load == .cached { configuration.cache = ResponseCache(maximumBytes: Self.cacheBytes) }
                let manager = ResourceManager(requester: try transport.make(), configuration: configuration)
                let counter = LockedValue(0)
                let sampleEvery = max(1, total / 100)
                let decileStarts = LockedValue<[ContinuousClock.Instant]>([])
                let start = clock.now
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<Self.workers {
                        group.addTask {
                            while true {
                                let index = counter.withLock { value -> Int in
                                    defer { value += 1 }
                                    return value
                                }
                                guard index < total else { return }
                                if index % sampleEvery == 0 {
                                    let sample = (ProcessFigures.residentBytes, ProcessFigures.heapInUse ?? 0)
                                    samples.withLock { $0.append(sample) }
                                }
                                if index % max(1, total / 10) == 0 { decileStarts.withLock { $0.append(clock.now) } }
                                // Half hot, half spread over every URL: the small cache keeps
                                // evicting, and still serves hits.
                                let slot =
                                    index.isMultiple(of: 2)
                                    ? (index / 2) % Self.hotURLs : (index &* 7_919) % Self.distinctURLs
                                let contact = slot % 24 + 1
                                let url = chaos.url(
                                    run: run, profile: load.profile, seed: slot / 24, "contacts/\(contact)")
                                do {
                                    let document = try await manager.resource(from: url)
                                    if document["id"]?.intValue != contact {
                                        wrong.withLock { $0.append("\(url): \(document["id"] ?? "no id")") }
                                    }
                                } catch is HalleyError where load == .faulty {
                                    // No retry policy: a fault fails its request, with a typed error.
                                    failed.withLock { $0 += 1 }
                                } catch {
                                    wrong.withLock { $0.append("\(url): \(error)") }
                                }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                elapsed = clock.now - start
                if transport == .curl {
                    #expect(ProcessFigures.threads(named: "halley.curl") > before.curlThreads, "the engine thread runs")
                }
                let starts = decileStarts.get().sorted() + [clock.now]
                decileTimes = zip(starts, starts.dropFirst()).map { $1 - $0 }
            }
            let problems = wrong.get()
            #expect(problems.isEmpty, "\(problems.count) wrong answer(s), first: \(problems.prefix(5))")

            // The manager is gone: its connections, descriptors and threads with it.
            let (stats, closed) = try await chaos.waitForStats(run: run, within: .seconds(10)) {
                $0.openConnections == 0
            }
            #expect(closed, "the server still has \(stats.openConnections) connection(s) of the released manager")
            if load == .faulty {
                // Faults were injected, and each failed request was reported, no more.
                #expect(stats.injected > 0 && failed.get() > 0, "\(stats.injected) faults, \(failed.get()) failed")
                #expect(failed.get() <= stats.injected, "\(failed.get()) failed, \(stats.injected) faults")
            } else {
                #expect(failed.get() == 0)
            }
            let socketsClosed = try await ProcessFigures.wait(upTo: .seconds(10)) {
                ProcessFigures.sockets(toPort: chaos.port) <= before.sockets
            }
            #expect(socketsClosed, "\(ProcessFigures.sockets(toPort: chaos.port)) socket(s) to the server remain")
            // A CurlRequester's engine thread ends with the requester (other suites' requesters
            // may be running theirs meanwhile, hence "no more than before").
            let curlThreadGone = try await ProcessFigures.wait(upTo: .seconds(10)) {
                ProcessFigures.threads(named: "halley.curl") <= before.curlThreads
            }
            #expect(curlThreadGone, "\(ProcessFigures.threads(named: "halley.curl")) halley.curl threads remain")
            let threadsOnRelease = ProcessFigures.threads
            if scale.isAlone {
                // Dispatch's idle worker threads (URLSession's) end on their own after a few
                // seconds; beside other suites (a plain `swift test`) their threads come and go,
                // so it does not wait. The figure is printed, not asserted: Dispatch decides.
                _ = try await ProcessFigures.wait(upTo: .seconds(10)) { ProcessFigures.threads <= before.threads }
            }
            let heapAfter = ProcessFigures.heapInUse ?? 0
            let rss = samples.get().map(\.rss)
            let heap = samples.get().map(\.heap)
            let window = max(1, rss.count / 10)
            let first = rss.prefix(window).max() ?? 0
            let last = rss.suffix(window).max() ?? 0
            let drift = Double(last - first) / Double(max(1, first))
            let heapFirst = heap.prefix(window).max() ?? 0
            let heapLast = heap.suffix(window).max() ?? 0
            // Bytes the heap gained per request between the first tenth and the last, and kept
            // per request from before the manager to after its release.
            let growthPerRequest = (heapLast - heapFirst) / max(1, total * 9 / 10)
            let keptPerRequest = (heapAfter - before.heap) / max(1, total)
            if scale.isAlone {
                // Nothing else runs in the process, so the whole process is the measure.
                let descriptorsBack = try await ProcessFigures.wait(upTo: .seconds(10)) {
                    ProcessFigures.openDescriptors <= before.descriptors
                }
                #expect(descriptorsBack, "\(ProcessFigures.openDescriptors) descriptors, \(before.descriptors) before")
            }
            // Under a sanitizer, shadow memory and the sanitizer's own allocator drown both figures.
            if scale.isAlone && !Sanitizer.isActive {
                // FoundationNetworking (Swift 6.3) leaks about 0.35 KiB a request, which a fresh
                // process shows as resident growth too (RELIABILITY.md). The short run's 1,500
                // requests move the figures less and more noisily: pools and caches still fill
                // while it runs (up to about 1,000 bytes a request seen through either requester,
                // 400-900 through URLSession, -100 to 1,020 through curl, against 27-61 bytes over
                // the full run), so its bound catches what keeps two kilobytes or more per
                // request, such as each response with its headers.
                let allowedDrift = scale.isFull ? (transport.hasFoundationNetworkingGaps ? 0.25 : 0.10) : 0.25
                #expect(
                    drift <= allowedDrift,
                    "peak RSS \(first >> 20) MiB in the first 10 %, \(last >> 20) MiB in the last")
                if ProcessFigures.heapInUse != nil {
                    // The heap grows by what the platform keeps per request and nothing of ours:
                    // an entry, a buffer or a task kept per request would be kilobytes.
                    let bound =
                        transport.hasFoundationNetworkingGaps
                        ? (scale.isFull ? 512 : 2_048) : (scale.isFull ? 128 : 2_048)
                    #expect(
                        growthPerRequest <= bound,
                        "the heap grew \(growthPerRequest) bytes per request (\(bound) allowed)")
                }
            }
            let seconds = Double(elapsed.inMilliseconds) / 1000
            Reliability.report(
                load.label, transport,
                [
                    ("requests", total), ("sentToServer", stats.requests), ("faults", stats.injected),
                    ("failed", failed.get()), ("seconds", String(format: "%.1f", seconds)),
                    ("requestsPerSecond", Int(Double(total) / max(0.001, seconds))),
                    ("rssFirst10MiB", first >> 20), ("rssLast10MiB", last >> 20),
                    ("rssDrift", String(format: "%.3f", drift)),
                    ("heapBeforeMiB", String(format: "%.1f", Double(before.heap) / 1_048_576)),
                    ("heapFirst10MiB", String(format: "%.1f", Double(heapFirst) / 1_048_576)),
                    ("heapLast10MiB", String(format: "%.1f", Double(heapLast) / 1_048_576)),
                    ("heapDrift", String(format: "%.3f", Double(heapLast - heapFirst) / Double(max(1, heapFirst)))),
                    ("heapAfterReleaseMiB", String(format: "%.1f", Double(heapAfter) / 1_048_576)),
                    ("heapGrowthPerRequest", growthPerRequest), ("heapKeptPerRequest", keptPerRequest),
                    ("fdBefore", before.descriptors),
                    ("fdAfter", ProcessFigures.openDescriptors), ("threadsBefore", before.threads),
                    ("threadsOnRelease", threadsOnRelease), ("threadsAfter", ProcessFigures.threads),
                    ("wrong", problems.count),
                ])
            print(Self.table(rss: rss, deciles: decileTimes, total: total, label: "\(load.label) \(transport)"))
            try await chaos.forget(run: run)
        }

        /// Found by the soak (issue #19): with the default 60 s per-attempt limit, every request
        /// left a cancelled timer behind for 60 s (a cancelled `Task.sleep` keeps it until its
        /// wake time), about 1.7 KB each: 40 MiB after 25,000 quick requests.
        @Test(.disabled(if: Sanitizer.isActive, "shadow memory drowns the figure"))
        func finishedCallsLeaveNoTimersBehind() async throws {
            let requester = InMemoryRequester()
            await requester.register(Graph.base + "/quick", json: ["quick": true])
            let manager = ResourceManager.over(requester) { $0.requestTimeout = .seconds(60) }
            var options = CallOptions()
            options.deadline = .seconds(60)
            let callOptions = options
            func calls(_ count: Int) async throws {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in 0..<8 {
                        group.addTask {
                            for _ in stride(from: worker, to: count, by: 8) {
                                _ = try await manager.resource(from: Graph.url("/quick"), options: callOptions)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            try await calls(2_000)  // warm up
            let before = ProcessFigures.residentBytes
            try await calls(20_000)
            let growth = ProcessFigures.residentBytes - before
            // Two timers per call (the attempt's and the deadline's) held 60 s: about 70 MiB.
            #expect(growth < 24 << 20, "resident size grew \(growth >> 20) MiB over 20,000 calls")
        }

        /// RSS and requests per second for each tenth of the run, with a bar per tenth.
        static func table(rss: [Int], deciles: [Duration], total: Int, label: String) -> String {
            var lines = ["RELIABILITY-TABLE \(label): tenth | requests/s | peak RSS MiB"]
            let peak = max(1, rss.max() ?? 1)
            for tenth in 0..<10 {
                let slice =
                    rss.count >= 10 ? Array(rss[(tenth * rss.count / 10)..<((tenth + 1) * rss.count / 10)]) : rss
                let bytes = slice.max() ?? 0
                let time = tenth < deciles.count ? deciles[tenth] : .zero
                let rate = time > .zero ? Int(Double(total / 10) / (Double(time.inMilliseconds) / 1000)) : 0
                let bar = String(repeating: "#", count: max(1, bytes * 40 / peak))
                lines.append("RELIABILITY-TABLE \(label): \(tenth + 1) | \(rate) | \(bytes >> 20) \(bar)")
            }
            return lines.joined(separator: "\n")
        }
    }
}
