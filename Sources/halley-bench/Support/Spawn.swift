import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Child processes started with `posix_spawn` rather than Foundation's `Process`, for two
/// reasons:
///
/// - a clean signal mask: a child inherits its spawning thread's mask, the Swift runtime's
///   threads block nearly every signal, and a server that never unblocks them (nginx without
///   a master process) would never see a SIGTERM;
/// - valgrind: `Process` fails under it (EBADF, valgrind keeps descriptors of its own), and
///   callgrind must be able to run every scenario.
enum Spawn {
    /// A pipe; both ends close on `exec`, so neither leaks into another child (a server
    /// reading its stdin must see end of file when this process closes its end).
    static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw BenchError("pipe failed: errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Starts `path` with `arguments` (the program name not included). Each standard stream
    /// is the descriptor given, or `/dev/null`.
    static func start(
        _ path: String, _ arguments: [String], stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil
    ) throws -> pid_t {
        #if canImport(Glibc)
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
            let environment = environ
        #else
            var actions: posix_spawn_file_actions_t?
            var attributes: posix_spawnattr_t?
            let environment = _NSGetEnviron().pointee
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, target, flags) in [(stdin, 0, O_RDONLY), (stdout, 1, O_WRONLY), (stderr, 2, O_WRONLY)] {
            if let descriptor {
                posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(target))
            } else {
                posix_spawn_file_actions_addopen(&actions, Int32(target), "/dev/null", flags, 0)
            }
        }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let words = [path] + arguments
        let argv = words.map { strdup($0) }
        defer { for word in argv { free(word) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv + [nil], environment)
        guard spawned == 0 else {
            throw BenchError("cannot run \(path): \(String(cString: strerror(spawned)))")
        }
        return pid
    }

    /// Waits for the child and returns its exit status (128 + the signal when killed).
    @discardableResult
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return -1 }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Whether the child has exited (it is then reaped: don't wait for it again).
    static func hasExited(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid
    }

    /// Runs `path` to the end; throws with the end of its standard error when it fails.
    static func run(_ path: String, _ arguments: [String]) throws {
        let errors = try makePipe()
        let pid: pid_t
        do {
            pid = try start(path, arguments, stderr: errors.write)
        } catch {
            close(errors.read)
            close(errors.write)
            throw error
        }
        close(errors.write)
        let text = readToEnd(errors.read)
        close(errors.read)
        let status = wait(pid)
        guard status == 0 else {
            throw BenchError(
                "\(path) \(arguments.joined(separator: " ")) failed (\(status)): "
                    + String(decoding: text, as: UTF8.self).suffix(300))
        }
    }

    /// What the descriptor holds until end of file.
    static func readToEnd(_ descriptor: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return bytes }
            bytes += buffer[0..<count]
        }
    }

    /// The first line the descriptor gives (without its newline), or what came before end of
    /// file.
    static func readLine(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 || byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
