import SwiftIfConfig

/// One API an Apple build treats differently from Linux: how its uses look in the syntax
/// tree, and what limits it there.
public struct APIRule: Sendable {
    /// How a use of the API appears in code.
    public enum Pattern: Sendable, Hashable {
        /// A type or function of that name, unqualified or qualified by its module
        /// (`Int128`, `Swift.Int128`, `@Observable`, `: TaskExecutor`, `environ`).
        case name(String)
        /// A member of that name on any base (`FileManager.default.homeDirectoryForCurrentUser`).
        case member(String)
        /// `NAME.rawValue`: glibc's C enums, imported as structs; Darwin's are plain `Int32`s.
        case rawValue(of: String)
        /// `import NAME`, and names qualified by it (`Glibc.environ`).
        case module(String)
    }

    /// What limits the API on Apple platforms.
    public enum Limit: Sendable {
        /// Available from these versions on: a use needs a deployment target, an `@available`
        /// or an `if #available` at least as new.
        case introduced([Platform: VersionTuple])
        /// Not declared on these platforms at all: only a `#if` that leaves them out helps.
        case absent(Set<Platform>)
        /// One of Apple's required-reason APIs (this category of them): an app that ships code
        /// calling it needs a privacy manifest that declares why.
        case needsReason(String)
    }

    /// How its uses look.
    public let pattern: Pattern
    /// What limits it.
    public let limit: Limit
    /// Why, for the finding's parenthesis.
    public let why: String

    /// A rule.
    public init(_ pattern: Pattern, _ limit: Limit, _ why: String) {
        self.pattern = pattern
        self.limit = limit
        self.why = why
    }

    /// The API as the finding names it.
    public var displayName: String {
        switch pattern {
        case .name(let name), .member(let name): name
        case .rawValue(let name): "\(name).rawValue"
        case .module(let name): "module \(name)"
        }
    }
}

/// Versions every Apple platform gained an API at once, as Apple's yearly releases pair them.
private func since(macOS: Int, iOS: Int, tvOS: Int, watchOS: Int) -> APIRule.Limit {
    .introduced([
        .macOS: VersionTuple(macOS, 0), .iOS: VersionTuple(iOS, 0), .tvOS: VersionTuple(tvOS, 0),
        .watchOS: VersionTuple(watchOS, 0),
    ])
}

/// The 2022 releases: Swift 5.7's runtime.
private let since2022 = since(macOS: 13, iOS: 16, tvOS: 16, watchOS: 9)
/// The 2023 releases: Swift 5.9's runtime and the Observation module.
private let since2023 = since(macOS: 14, iOS: 17, tvOS: 17, watchOS: 10)
/// The 2024 releases: Swift 6.0's runtime and the Synchronization module.
private let since2024 = since(macOS: 15, iOS: 18, tvOS: 18, watchOS: 11)
/// The 2025 releases (version 26 everywhere): Swift 6.2's runtime.
private let since2025 = since(macOS: 26, iOS: 26, tvOS: 26, watchOS: 26)

/// Every platform Apple ships.
private let onApple = APIRule.Limit.absent(Set(Platform.apple))
/// Apple's platforms without processes of their own to start.
private let onAppleButMacOS = APIRule.Limit.absent([.iOS, .tvOS, .watchOS])

/// The APIs the tool checks, one entry each. Versions are those of Apple's SDK headers and
/// the standard library's `@available` attributes; a new entry names its source.
public let apiRules: [APIRule] = [
    // MARK: Available from a version on

    // Swift 5.7's clocks and durations (the standard library's `SwiftStdlib 5.7`).
    APIRule(.name("Duration"), since2022, "Swift 5.7's Duration is in the OS's runtime from these versions"),
    APIRule(.name("ContinuousClock"), since2022, "Swift 5.7's clocks are in the OS's runtime from these versions"),
    APIRule(.name("SuspendingClock"), since2022, "Swift 5.7's clocks are in the OS's runtime from these versions"),
    // Swift 5.7's regular expressions.
    APIRule(.name("Regex"), since2022, "Swift 5.7's Regex is in the OS's runtime from these versions"),
    // Observation: the macro, the protocol and the registrar it expands to, and the tracking
    // function (Observation's `@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)`).
    APIRule(.name("Observable"), since2023, "the Observation module is in the OS from these versions"),
    APIRule(.name("ObservationIgnored"), since2023, "the Observation module is in the OS from these versions"),
    APIRule(.name("ObservationTracked"), since2023, "the Observation module is in the OS from these versions"),
    APIRule(.name("ObservationRegistrar"), since2023, "the Observation module is in the OS from these versions"),
    APIRule(.name("withObservationTracking"), since2023, "the Observation module is in the OS from these versions"),
    // Swift 6.2's async sequence of an observed value's changes.
    APIRule(.name("Observations"), since2025, "Swift 6.2's Observations needs the 26 releases"),
    // Swift 5.9's discarding task groups and the executor job type.
    APIRule(.name("withDiscardingTaskGroup"), since2023, "Swift 5.9's discarding task groups need its runtime"),
    APIRule(.name("withThrowingDiscardingTaskGroup"), since2023, "Swift 5.9's discarding task groups need its runtime"),
    APIRule(.name("ExecutorJob"), since2023, "Swift 5.9's ExecutorJob needs its runtime"),
    // Swift 6.0's 128-bit integers (`SwiftStdlib 6.0`).
    APIRule(.name("Int128"), since2024, "Swift 6's 128-bit integers are in the OS's runtime from these versions"),
    APIRule(.name("UInt128"), since2024, "Swift 6's 128-bit integers are in the OS's runtime from these versions"),
    // The Synchronization module (SE-0433 Mutex, SE-0410 atomics).
    APIRule(.name("Mutex"), since2024, "the Synchronization module is in the OS from these versions"),
    APIRule(.name("Atomic"), since2024, "the Synchronization module is in the OS from these versions"),
    APIRule(.name("AtomicLazyReference"), since2024, "the Synchronization module is in the OS from these versions"),
    // Task executors (SE-0417), in the Swift 6.0 runtime.
    APIRule(.name("TaskExecutor"), since2024, "task executors (SE-0417) need the Swift 6 runtime"),
    APIRule(.name("UnownedTaskExecutor"), since2024, "task executors (SE-0417) need the Swift 6 runtime"),
    APIRule(.name("withTaskExecutorPreference"), since2024, "task executors (SE-0417) need the Swift 6 runtime"),
    APIRule(.name("globalConcurrentExecutor"), since2024, "task executors (SE-0417) need the Swift 6 runtime"),
    // Swift 6.2's fixed-size arrays (SE-0453) and UTF-8 spans (SE-0464).
    APIRule(.name("InlineArray"), since2025, "Swift 6.2's InlineArray needs the 26 releases"),
    APIRule(.name("UTF8Span"), since2025, "Swift 6.2's UTF8Span needs the 26 releases"),

    // MARK: Glibc's, absent from Darwin

    // Modules only the Linux toolchain has: Darwin's Foundation holds URLSession and
    // XMLParser itself, and the C library is Darwin.
    APIRule(.module("Glibc"), onApple, "no Glibc module on Apple platforms: the C library is Darwin"),
    APIRule(.module("SwiftGlibc"), onApple, "no Glibc module on Apple platforms: the C library is Darwin"),
    APIRule(.module("Musl"), onApple, "no Musl module on Apple platforms: the C library is Darwin"),
    APIRule(.module("FoundationNetworking"), onApple, "Apple's Foundation holds URLSession itself"),
    APIRule(.module("FoundationXML"), onApple, "Apple's Foundation holds XMLParser itself"),
    APIRule(.module("FoundationEssentials"), onApple, "Apple's SDK has Foundation only, not swift-foundation's parts"),
    // glibc declares its socket types and rusage selectors as C enums, which Swift imports as
    // structs with a `rawValue`; Darwin's are macros, imported as plain `Int32`s.
    APIRule(.rawValue(of: "SOCK_STREAM"), onApple, "Darwin's SOCK_STREAM is an Int32 with no rawValue"),
    APIRule(.rawValue(of: "SOCK_DGRAM"), onApple, "Darwin's SOCK_DGRAM is an Int32 with no rawValue"),
    APIRule(.rawValue(of: "SOCK_RAW"), onApple, "Darwin's SOCK_RAW is an Int32 with no rawValue"),
    APIRule(.rawValue(of: "SOCK_SEQPACKET"), onApple, "Darwin's SOCK_SEQPACKET is an Int32 with no rawValue"),
    APIRule(.rawValue(of: "RUSAGE_SELF"), onApple, "Darwin's RUSAGE_SELF is an Int32 with no rawValue"),
    APIRule(.rawValue(of: "RUSAGE_CHILDREN"), onApple, "Darwin's RUSAGE_CHILDREN is an Int32 with no rawValue"),
    // The types of those enums.
    APIRule(.name("__socket_type"), onApple, "glibc's enum of socket types; Darwin has plain Int32s"),
    APIRule(.name("__rusage_who_t"), onApple, "glibc's enum of rusage selectors; Darwin has plain Int32s"),
    // unistd.h's `environ`: glibc declares it, Darwin's headers do not (they offer
    // `_NSGetEnviron()`; Foundation has `ProcessInfo.processInfo.environment`).
    APIRule(.name("environ"), onApple, "Darwin's headers do not declare environ: use _NSGetEnviron() or ProcessInfo"),
    // glibc's allocator statistics and trimming; Darwin's allocator has malloc_zone_* instead.
    APIRule(.name("mallinfo"), onApple, "glibc's allocator statistics; Darwin has malloc_zone_statistics"),
    APIRule(.name("mallinfo2"), onApple, "glibc's allocator statistics; Darwin has malloc_zone_statistics"),
    APIRule(.name("malloc_trim"), onApple, "glibc's allocator call; Darwin has malloc_zone_pressure_relief"),
    APIRule(.name("malloc_usable_size"), onApple, "glibc's allocator call; Darwin has malloc_size"),
    // Linux system calls and flags Darwin lacks.
    APIRule(.name("epoll_create1"), onApple, "epoll is Linux's; Darwin has kqueue"),
    APIRule(.name("epoll_ctl"), onApple, "epoll is Linux's; Darwin has kqueue"),
    APIRule(.name("epoll_wait"), onApple, "epoll is Linux's; Darwin has kqueue"),
    APIRule(.name("eventfd"), onApple, "eventfd is Linux's; Darwin has pipes or kqueue's EVFILT_USER"),
    APIRule(.name("accept4"), onApple, "accept4 is Linux's; Darwin has accept and fcntl"),
    APIRule(.name("pipe2"), onApple, "pipe2 is Linux's; Darwin has pipe and fcntl"),
    APIRule(.name("SOCK_CLOEXEC"), onApple, "a Linux socket flag; Darwin sets FD_CLOEXEC with fcntl"),
    APIRule(.name("SOCK_NONBLOCK"), onApple, "a Linux socket flag; Darwin sets O_NONBLOCK with fcntl"),
    APIRule(.name("prctl"), onApple, "prctl is Linux's"),
    APIRule(.name("sched_getaffinity"), onApple, "CPU affinity is Linux's; Darwin has none to read"),

    // MARK: Apple's required-reason APIs (the categories of NSPrivacyAccessedAPITypes)

    // File timestamps.
    APIRule(.member("creationDate"), .needsReason("file timestamp"), "a file timestamp"),
    APIRule(.member("modificationDate"), .needsReason("file timestamp"), "a file timestamp"),
    APIRule(.member("contentModificationDate"), .needsReason("file timestamp"), "a file timestamp"),
    APIRule(.member("creationDateKey"), .needsReason("file timestamp"), "a file timestamp"),
    APIRule(.member("contentModificationDateKey"), .needsReason("file timestamp"), "a file timestamp"),
    APIRule(.member("contentAccessDateKey"), .needsReason("file timestamp"), "a file timestamp"),
    APIRule(.name("stat"), .needsReason("file timestamp"), "stat(2) returns file timestamps"),
    APIRule(.name("fstat"), .needsReason("file timestamp"), "fstat(2) returns file timestamps"),
    APIRule(.name("lstat"), .needsReason("file timestamp"), "lstat(2) returns file timestamps"),
    APIRule(.name("fstatat"), .needsReason("file timestamp"), "fstatat(2) returns file timestamps"),
    APIRule(.name("getattrlist"), .needsReason("file timestamp"), "getattrlist(2) returns file timestamps"),
    // System boot time.
    APIRule(.member("systemUptime"), .needsReason("system boot time"), "the time since boot"),
    APIRule(.name("mach_absolute_time"), .needsReason("system boot time"), "the time since boot"),
    // Disk space.
    APIRule(.member("volumeAvailableCapacityKey"), .needsReason("disk space"), "free disk space"),
    APIRule(.member("volumeAvailableCapacityForImportantUsageKey"), .needsReason("disk space"), "free disk space"),
    APIRule(.member("volumeTotalCapacityKey"), .needsReason("disk space"), "disk size"),
    APIRule(.member("systemFreeSize"), .needsReason("disk space"), "free disk space"),
    APIRule(.name("statfs"), .needsReason("disk space"), "statfs(2) returns disk space"),
    APIRule(.name("statvfs"), .needsReason("disk space"), "statvfs(3) returns disk space"),
    // Active keyboards.
    APIRule(.member("activeInputModes"), .needsReason("active keyboards"), "the user's keyboards"),
    // User defaults.
    APIRule(.name("UserDefaults"), .needsReason("user defaults"), "the app's defaults"),

    // MARK: macOS's, absent from iOS, tvOS and watchOS

    // Foundation's `Process` (NSTask) is `API_UNAVAILABLE(ios, watchos, tvos)`: apps there
    // cannot start processes.
    APIRule(.name("Process"), onAppleButMacOS, "Foundation's Process exists on macOS only"),
    // A user's home folder is macOS's idea (`API_UNAVAILABLE(ios, watchos, tvos)`).
    APIRule(
        .member("homeDirectoryForCurrentUser"), onAppleButMacOS,
        "FileManager.homeDirectoryForCurrentUser exists on macOS only"),
]
