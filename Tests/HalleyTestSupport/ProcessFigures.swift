import Foundation

/// This process as the kernel sees it (`/proc/self`): resident memory, open descriptors,
/// threads, and the TCP sockets connected to one port. Zero where there is no procfs.
public enum ProcessFigures {
    /// The resident set size now, in bytes (`VmRSS`).
    public static var residentBytes: Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.count >= 2, let kilobytes = Int(fields[1]) { return kilobytes * 1024 }
        }
        return 0
    }

    /// The bytes malloc has handed out and not had back (glibc's `mallinfo2`: `uordblks` plus
    /// `hblkhd`), or `nil` where it cannot be read.
    ///
    /// Unlike the resident size, it grows with every byte that stays allocated, even when it
    /// fills memory an earlier test freed: the measure for leaks in a process that has run
    /// other suites.
    public static var heapInUse: Int? {
        #if os(Linux) && arch(x86_64)
            // `struct mallinfo2 mallinfo2(void)` returns ten `size_t`s: 80 bytes, which the x86-64
            // System V ABI returns through a buffer whose address the caller passes as the first
            // argument (and the callee returns). So the function has, at the machine level, the
            // type below. glibc 2.33 and later export it; `dlsym` finds nothing elsewhere.
            typealias Mallinfo2 = @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?
            guard let symbol = UnsafeMutableRawPointer(bitPattern: mallinfo2Address) else { return nil }
            let call = unsafeBitCast(symbol, to: Mallinfo2.self)
            var fields = [Int](repeating: 0, count: 10)
            fields.withUnsafeMutableBytes { _ = call($0.baseAddress!) }
            // arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost
            return fields[7] + fields[4]
        #else
            return nil
        #endif
    }

    #if os(Linux) && arch(x86_64)
        /// Where `mallinfo2` is (0 when absent), as a number: a pointer is not `Sendable`.
        private static let mallinfo2Address = Int(
            bitPattern: dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallinfo2"))  // RTLD_DEFAULT
    #endif

    /// Open file descriptors (`/proc/self/fd`).
    public static var openDescriptors: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// Threads (`/proc/self/task`).
    public static var threads: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    /// Threads whose name (`/proc/self/task/*/comm`) is `name`, such as `halley.curl`.
    public static func threads(named name: String) -> Int {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return 0 }
        return tasks.filter { task in
            let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .whitespacesAndNewlines) == name
        }.count
    }

    /// This process's TCP sockets whose remote end is `port` on loopback, in any state but
    /// closed: what a requester still holds open to a test server.
    public static func sockets(toPort port: Int) -> Int {
        let inodes = socketInodes()
        guard !inodes.isEmpty else { return 0 }
        var count = 0
        for table in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, let colon = fields[2].lastIndex(of: ":"),
                    let remotePort = Int(fields[2][fields[2].index(after: colon)...], radix: 16),
                    remotePort == port, let inode = Int(fields[9]), inodes.contains(inode)
                else { continue }
                count += 1
            }
        }
        return count
    }

    /// The inodes of this process's sockets, from the `socket:[inode]` links in `/proc/self/fd`.
    private static func socketInodes() -> Set<Int> {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        var inodes = Set<Int>()
        for name in names {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
                target.hasPrefix("socket:["), target.hasSuffix("]")
            else { continue }
            if let inode = Int(target.dropFirst("socket:[".count).dropLast()) { inodes.insert(inode) }
        }
        return inodes
    }

    /// Waits until `condition` holds, up to `limit`; whether it held.
    public static func wait(upTo limit: Duration, until condition: () -> Bool) async throws -> Bool {
        let clock = ContinuousClock()
        let end = clock.now + limit
        while !condition() {
            if clock.now >= end { return false }
            try await Task.sleep(for: .milliseconds(50))
        }
        return true
    }
}

/// Durations collected from many calls, for percentiles in reports.
public struct LatencyRecord: Sendable {
    /// The durations added, in order.
    public private(set) var samples: [Duration] = []

    /// An empty record.
    public init() {}

    public mutating func add(_ duration: Duration) { samples.append(duration) }

    public mutating func add(_ other: LatencyRecord) { samples += other.samples }

    /// The `fraction` percentile (0.5, 0.99), or zero without samples.
    public func percentile(_ fraction: Double) -> Duration {
        guard !samples.isEmpty else { return .zero }
        let sorted = samples.sorted()
        let index = min(sorted.count - 1, max(0, Int((Double(sorted.count) * fraction).rounded(.up)) - 1))
        return sorted[index]
    }

    public var maximum: Duration { samples.max() ?? .zero }

    /// `p50 12 ms, p99 180 ms, max 201 ms`.
    public var summary: String {
        "p50 \(percentile(0.5).inMilliseconds) ms, p99 \(percentile(0.99).inMilliseconds) ms, max \(maximum.inMilliseconds) ms"
    }
}

extension Duration {
    /// Whole milliseconds, rounded down.
    public var inMilliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
