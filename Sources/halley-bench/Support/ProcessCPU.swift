import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// This process's CPU time, user plus system, every thread.
enum ProcessCPU {
    static func seconds() -> Double {
        guard let usage = ownUsage() else { return .nan }
        func value(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return value(usage.ru_utime) + value(usage.ru_stime)
    }
}

/// `getrusage(RUSAGE_SELF)`: this process's resource use, every thread; `nil` if it fails.
func ownUsage() -> rusage? {
    var usage = rusage()
    #if canImport(Glibc)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
    #else
        let who = RUSAGE_SELF
    #endif
    return getrusage(who, &usage) == 0 ? usage : nil
}
