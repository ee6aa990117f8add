// halley-transport-probe: one request through one requester, in a process of its own, so a
// test can hold the transport to a memory bound measured by the kernel for this process
// alone (its VmHWM) rather than by the test process's own allocator.
//
//     halley-transport-probe REQUESTER URL [--warmup URL] [--max-body BYTES] [--timeout-ms MS]
//                            [--rss-cap BYTES]
//
//     halley-transport-probe REQUESTER URL --cancel-race SECONDS [--workers N] [--min-delay-us US]
//                            [--max-delay-us US]
//
// With --cancel-race, requests URL from N workers (2) for SECONDS, cancelling each at a random
// moment 0 to 1,000 microseconds (or the range given) after it started, around the moment a
// quick loopback answer completes, and prints {"outcome": "cancel-race", "requests", "completed",
// "cancelled", "failed", "firstFailure"}. A requester that traps on such a cancellation ends
// the process with a signal instead.
//
// REQUESTER is `urlsession`, `curl` or `default`. Prints one JSON object on stdout:
// {"outcome": "response" | "error", "status", "bodyBytes", "headerCount", "errorType",
//  "error", "elapsedSeconds", "baselineRSS", "peakRSS", "sanitized"}. `baselineRSS` is the resident size
// after the warm-up request, just before the measured one; `peakRSS` the highest it ever was. Past --rss-cap (default 1 GiB) a watchdog
// ends the process with status 3, so a transport that floods memory cannot take the machine
// down with it. Not part of the library: a test helper only.

import Foundation
import Halley

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct ProbeArguments {
    var requester = ""
    var url: URL?
    var warmup: URL?
    var maxBody = 16 * 1024 * 1024
    var timeout: Duration = .seconds(30)
    var rssCap = 1 << 30
    var cancelRaceSeconds = 0
    var workers = 2
    var maxDelayMicroseconds = 1_000
    var minDelayMicroseconds = 0

    static func parse(_ arguments: [String]) -> ProbeArguments? {
        var result = ProbeArguments()
        var positional: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            func value() -> String? {
                defer { index += 1 }
                return index < arguments.count ? arguments[index] : nil
            }
            switch argument {
            case "--warmup": result.warmup = value().flatMap(URL.init(string:))
            case "--max-body": result.maxBody = value().flatMap { Int($0) } ?? result.maxBody
            case "--timeout-ms": result.timeout = .milliseconds(value().flatMap { Int($0) } ?? 30_000)
            case "--rss-cap": result.rssCap = value().flatMap { Int($0) } ?? result.rssCap
            case "--cancel-race": result.cancelRaceSeconds = value().flatMap { Int($0) } ?? 0
            case "--workers": result.workers = value().flatMap { Int($0) } ?? result.workers
            case "--min-delay-us":
                result.minDelayMicroseconds = value().flatMap { Int($0) } ?? result.minDelayMicroseconds
            case "--max-delay-us":
                result.maxDelayMicroseconds = value().flatMap { Int($0) } ?? result.maxDelayMicroseconds
            default: positional.append(argument)
            }
        }
        guard positional.count == 2, let url = URL(string: positional[1]) else { return nil }
        result.requester = positional[0]
        result.url = url
        return result
    }
}

/// A size from /proc/self/status (`VmRSS`, the resident set now, or `VmHWM`, its peak since
/// this program was executed); 0 where there is no procfs.
func statusBytes(_ field: String = "VmRSS:") -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(field) {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if fields.count >= 2, let kilobytes = Int(fields[1]) { return kilobytes * 1024 }
    }
    return 0
}

func residentBytes() -> Int { statusBytes() }

/// Whether this binary runs under ThreadSanitizer or AddressSanitizer, whose shadow memory
/// and quarantine make resident sizes several times what the code itself uses.
let sanitized: Bool = {
    #if os(Linux)
        let everywhere = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT
        return dlsym(everywhere, "__tsan_init") != nil || dlsym(everywhere, "__asan_init") != nil
    #else
        return false
    #endif
}()

func makeRequester(_ name: String) -> (any RequesterInterface & Sendable)? {
    switch name {
    case "urlsession": return URLSessionRequester()
    case "default": return DefaultRequester.make()
    default: return probeRequester(named: name)
    }
}

func emit(_ object: [String: Any]) {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

// The durable store's modes (StoreProbe.swift) take over before the requester's arguments.
if CommandLine.arguments.count > 1, CommandLine.arguments[1].hasPrefix("store-") {
    exit(await runStoreProbe(Array(CommandLine.arguments.dropFirst())))
}

guard let arguments = ProbeArguments.parse(Array(CommandLine.arguments.dropFirst())), let url = arguments.url,
    let requester = makeRequester(arguments.requester)
else {
    FileHandle.standardError.write(Data("usage: halley-transport-probe urlsession|curl|default URL [options]\n".utf8))
    exit(64)
}

// The watchdog: a transport that floods memory is stopped long before the machine suffers.
let cap = arguments.rssCap
Thread.detachNewThread {
    while true {
        if residentBytes() > cap {
            emit(["outcome": "rss-cap", "error": "resident size passed \(cap) bytes", "peakRSS": statusBytes("VmHWM:")])
            _exit(3)
        }
        usleep(5_000)
    }
}

/// What the workers of --cancel-race saw.
struct RaceCounts: Sendable {
    var requests = 0
    var completed = 0
    var cancelled = 0
    var failed = 0
    var firstFailure: String?

    mutating func add(_ other: RaceCounts) {
        requests += other.requests
        completed += other.completed
        cancelled += other.cancelled
        failed += other.failed
        firstFailure = firstFailure ?? other.firstFailure
    }

    var report: [String: Any] {
        var object: [String: Any] = [
            "outcome": "cancel-race", "requests": requests, "completed": completed, "cancelled": cancelled,
            "failed": failed,
        ]
        if let firstFailure { object["firstFailure"] = firstFailure }
        return object
    }
}

/// Requests `url` from `arguments.workers` workers until the time is up, cancelling each
/// request a random moment after it started.
func cancelRace(_ requester: any RequesterInterface & Sendable, url: URL, arguments: ProbeArguments) async -> RaceCounts
{
    let clock = ContinuousClock()
    let end = clock.now + .seconds(arguments.cancelRaceSeconds)
    let minDelay = max(0, arguments.minDelayMicroseconds)
    let maxDelay = max(minDelay, arguments.maxDelayMicroseconds)
    return await withTaskGroup(of: RaceCounts.self) { group in
        for _ in 0..<max(1, arguments.workers) {
            group.addTask {
                var counts = RaceCounts()
                var generator = SystemRandomNumberGenerator()
                while clock.now < end {
                    let request = Task { try await requester.response(for: ResourceRequest(url: url)) }
                    try? await Task.sleep(for: .microseconds(Int.random(in: minDelay...maxDelay, using: &generator)))
                    request.cancel()
                    counts.requests += 1
                    switch await request.result {
                    case .success: counts.completed += 1
                    case .failure(let error) where error is CancellationError: counts.cancelled += 1
                    case .failure(let error):
                        counts.failed += 1
                        counts.firstFailure = counts.firstFailure ?? String(describing: error)
                    }
                }
                return counts
            }
        }
        var total = RaceCounts()
        for await counts in group { total.add(counts) }
        return total
    }
}

let done = DispatchSemaphore(value: 0)
Task.detached {
    if arguments.cancelRaceSeconds > 0 {
        emit(await cancelRace(requester, url: url, arguments: arguments).report)
        done.signal()
        return
    }
    if let warmup = arguments.warmup {
        _ = try? await requester.response(for: ResourceRequest(url: warmup))
    }
    var request = ResourceRequest(url: url, timeout: arguments.timeout)
    request.maxBodyBytes = arguments.maxBody
    let baseline = residentBytes()
    let clock = ContinuousClock()
    let start = clock.now
    var result: [String: Any] = ["baselineRSS": baseline, "sanitized": sanitized]
    do {
        let response = try await requester.response(for: request)
        result["outcome"] = "response"
        result["status"] = response.status
        result["bodyBytes"] = response.body.count
        result["headerCount"] = response.headers.fields.count
    } catch {
        result["outcome"] = "error"
        result["errorType"] = String(describing: type(of: error))
        result["error"] = String(describing: error)
    }
    let elapsed = clock.now - start
    result["elapsedSeconds"] = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    // The peak of this process's own memory. (The parent's wait4 figure is no use: with
    // posix_spawn's vfork, Linux carries the parent's peak over into the child's ru_maxrss.)
    result["peakRSS"] = statusBytes("VmHWM:")
    emit(result)
    done.signal()
}
done.wait()
exit(0)
