#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's resident memory: current size and high-water mark.
///
/// On Linux both come from `/proc/self/status` (`VmRSS`, `VmHWM`), and the high-water mark
/// can be reset by writing `5` to `/proc/self/clear_refs` (Linux 4.0+), which gives each
/// scenario its own peak. Elsewhere the peak is `getrusage`'s `ru_maxrss`, which only
/// grows over the life of the process.
enum PeakMemory {
    /// One reading.
    struct Reading: Sendable {
        /// The resident set size now, in bytes; `nil` when unknown.
        let currentBytes: Int?
        /// The highest resident set size since the last reset (or process start), in bytes.
        let peakBytes: Int?
        /// Where the numbers came from: `proc` or `getrusage`.
        let source: String
    }

    /// Reads the current and peak resident set size.
    static func read() -> Reading {
        #if os(Linux)
            if let status = readProcStatus() {
                return Reading(currentBytes: status.rss, peakBytes: status.hwm, source: "/proc/self/status")
            }
        #endif
        return Reading(currentBytes: nil, peakBytes: rusagePeak(), source: "getrusage")
    }

    /// Resets the high-water mark to the current resident size.
    ///
    /// - Returns: Whether it worked; when it did not, later peaks are process-wide.
    @discardableResult
    static func resetPeak() -> Bool {
        #if os(Linux)
            let descriptor = open("/proc/self/clear_refs", O_WRONLY)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            var command: UInt8 = UInt8(ascii: "5")
            return write(descriptor, &command, 1) == 1
        #else
            return false
        #endif
    }

    /// Hands freed heap memory back to the kernel (glibc's `malloc_trim`, looked up at run
    /// time because the Glibc module does not export it), so the next reading of the current
    /// RSS counts live memory rather than pages the allocator kept from earlier work.
    ///
    /// - Returns: Whether the allocator supports it.
    @discardableResult
    static func releaseFreedMemory() -> Bool {
        #if os(Linux) && canImport(Glibc)
            typealias Trim = @convention(c) (Int) -> Int32
            guard let handle = dlopen(nil, RTLD_NOW) else { return false }
            defer { dlclose(handle) }
            guard let symbol = dlsym(handle, "malloc_trim") else { return false }
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
            return true
        #else
            return false
        #endif
    }

    /// Starts a measured section: trims the heap, resets the high-water mark and returns the
    /// RSS it starts from.
    static func startSection() -> Reading {
        releaseFreedMemory()
        resetPeak()
        return read()
    }

    #if os(Linux)
        /// `VmRSS` and `VmHWM` in bytes.
        private static func readProcStatus() -> (rss: Int?, hwm: Int?)? {
            guard let text = readSmallFile("/proc/self/status") else { return nil }
            var rss: Int?
            var hwm: Int?
            for line in text.split(separator: "\n") {
                if line.hasPrefix("VmRSS:") {
                    rss = kilobytes(line)
                } else if line.hasPrefix("VmHWM:") {
                    hwm = kilobytes(line)
                }
            }
            guard rss != nil || hwm != nil else { return nil }
            return (rss, hwm)
        }

        /// `VmHWM:     1234 kB` as bytes.
        private static func kilobytes(_ line: Substring) -> Int? {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let value = Int(fields[1]) else { return nil }
            return value * 1024
        }
    #endif

    /// `ru_maxrss`, which Linux reports in KiB and Darwin in bytes.
    private static func rusagePeak() -> Int? {
        guard let usage = ownUsage() else { return nil }
        #if canImport(Darwin)
            return Int(usage.ru_maxrss)
        #else
            return Int(usage.ru_maxrss) * 1024
        #endif
    }
}

/// The whole of a small text file (procfs files report size 0, so read until EOF).
func readSmallFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 { return nil }
        if count == 0 { break }
        bytes.append(contentsOf: buffer[0..<count])
    }
    return String(decoding: bytes, as: UTF8.self)
}
