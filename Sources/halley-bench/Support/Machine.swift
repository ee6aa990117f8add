import Foundation

/// What the benchmark ran on, for the report: kernel, processor, toolchain, build mode.
struct Machine: Sendable {
    /// `sysname release version machine`, as `uname -a` shows them.
    let kernel: String
    /// Host name.
    let host: String
    /// Processors available to the process.
    let processors: Int
    /// The first `model name` of `/proc/cpuinfo`, when there is one.
    let cpuModel: String?
    /// The compiler that built this binary, from `#if compiler(...)`.
    let compiler: String
    /// `release` or `debug`.
    let buildConfiguration: String

    static func current() -> Machine {
        var name = utsname()
        uname(&name)
        let sysname = field(&name.sysname)
        let release = field(&name.release)
        let version = field(&name.version)
        let machine = field(&name.machine)
        return Machine(
            kernel: [sysname, release, version, machine].joined(separator: " "),
            host: field(&name.nodename),
            processors: ProcessInfo.processInfo.activeProcessorCount,
            cpuModel: cpuModel(),
            compiler: compilerVersion,
            buildConfiguration: isDebugBuild ? "debug" : "release")
    }

    /// A fixed-size C character array of `utsname` as a string.
    private static func field<T>(_ value: inout T) -> String {
        withUnsafeBytes(of: &value) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    private static func cpuModel() -> String? {
        guard let text = readSmallFile("/proc/cpuinfo") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The 1, 5 and 15 minute load averages from `/proc/loadavg`: other work on the machine
    /// makes timings noisy, so the report records it.
    static func loadAverage() -> [Double]? {
        guard let text = readSmallFile("/proc/loadavg") else { return nil }
        let values = text.split(separator: " ").prefix(3).compactMap { Double($0) }
        return values.count == 3 ? values : nil
    }

    static let isDebugBuild: Bool = {
        #if DEBUG
            return true
        #else
            return false
        #endif
    }()

    private static let compilerVersion: String = {
        #if compiler(>=6.4)
            return "Swift >= 6.4"
        #elseif compiler(>=6.3)
            return "Swift 6.3"
        #elseif compiler(>=6.2)
            return "Swift 6.2"
        #elseif compiler(>=6.1)
            return "Swift 6.1"
        #else
            return "Swift 6.0"
        #endif
    }()
}

/// One run of the tool: where, how, and how busy the machine was.
struct RunContext: Sendable {
    let machine: Machine
    let settings: BenchSettings
    let started: Date
    /// Load averages when the run started and ended.
    let loadBefore: [Double]?
    let loadAfter: [Double]?

    /// The load averages as `1.00 0.50 0.25`.
    static func describe(_ load: [Double]?) -> String {
        load.map { $0.map { String(format: "%.2f", $0) }.joined(separator: " ") } ?? "unknown"
    }
}
