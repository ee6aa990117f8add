internal import CHalleyCurl
import Foundation
import HalleyHAL

/// Runs a requester's transfers on one libcurl multi handle and one dedicated thread.
///
/// Threading: the multi handle, every easy handle and every ``CurlTransfer`` belong to the
/// loop thread. Other threads only put commands in ``mailbox`` (under its lock) and wake the
/// loop with `curl_multi_wakeup`, the one libcurl call documented as safe from any thread.
/// The loop runs `curl_multi_perform`, hands finished transfers back by resuming their
/// continuations, and sleeps in `curl_multi_poll` until a socket is ready, libcurl's next
/// timeout, or a wake-up: no CPU is spent while responses are awaited.
///
/// The engine is also a task executor (the requester's `preferredTaskExecutor`): the jobs of
/// the calls that prefer it wait in ``mailbox`` too, and the loop runs them before each
/// `curl_multi_perform`, so a resumed caller and the transfers it starts next cost no
/// thread hand-off.
///
/// Lifetime: the thread starts with the first transfer and holds the engine until it ends;
/// ``stop()`` (called when the last copy of the requester goes away) ends it, and the multi
/// handle is cleaned up on that thread. The process's exit ends it too, and waits for it:
/// OpenSSL's exit handler must not free what the thread is still closing connections with.
final class CurlEngine: Sendable {
    /// A command for the loop thread.
    enum Command: Sendable {
        /// Its continuation is in it already. (Not in the command: an enum holding a
        /// continuation, whose layout the compiler does not know, is copied and switched
        /// over through the runtime's value witnesses.)
        case start(CurlTransfer)
        case cancel(CurlTransfer)
    }

    private struct Mailbox {
        var commands: [Command] = []
        /// Tasks that prefer this engine as their executor, waiting for the loop to run them.
        var jobs: [UnownedJob] = []
        var threadStarted = false
        /// Whether the loop is (about to be) asleep in `curl_multi_poll`: only then does a new
        /// command need a wake-up, which costs a system call on each side. An awake loop
        /// takes its commands before it sleeps again. The first wake-up clears it.
        var sleeping = false
        var stopping = false
        /// Set by the loop thread just before it cleans up the multi handle: no wake-ups after.
        var closed = false
    }

    private let mailbox = LockedValue(Mailbox())
    private let multi: MultiHandle
    /// What every easy handle is set up with.
    let setup: CurlHandleSetup

    /// Makes the multi handle (the thread starts with the first transfer).
    ///
    /// - Throws: ``CurlUnavailableError`` when libcurl is missing or refuses the handle.
    init(maxConnectionsPerHost: Int, setup: CurlHandleSetup = CurlHandleSetup()) throws(CurlUnavailableError) {
        try CurlLibrary.load()
        self.setup = setup
        guard let handle = halley_curl_multi_init() else {
            throw CurlUnavailableError(reason: "curl_multi_init failed")
        }
        // HTTP/2 multiplexing where the server offers it (libcurl's default since 7.62).
        _ = halley_curl_multi_setopt_long(handle, CurlABI.MultiOption.pipelining, CurlABI.Value.pipeMultiplex)
        // Transfers past this per host wait inside libcurl for a free connection.
        _ = halley_curl_multi_setopt_long(handle, CurlABI.MultiOption.maxHostConnections, max(1, maxConnectionsPerHost))
        // Keep as many idle connections as a full host's worth, for the next burst.
        _ = halley_curl_multi_setopt_long(handle, CurlABI.MultiOption.maxConnects, max(16, maxConnectionsPerHost))
        multi = MultiHandle(pointer: handle)
    }

    deinit {
        // Only reached when no thread ever ran (the running loop holds the engine) or after
        // it cleaned up and closed the handle.
        let neverStarted = mailbox.withLock { !$0.threadStarted }
        if neverStarted { _ = halley_curl_multi_cleanup(multi.pointer) }
    }

    // MARK: From any thread

    /// Queues a transfer whose continuation is set; it is resumed on the loop thread.
    func start(_ transfer: CurlTransfer) {
        let startThread = mailbox.withLock { mailbox in
            mailbox.commands.append(.start(transfer))
            return startsThread(&mailbox)
        }
        if startThread { startLoopThread() }
    }

    /// Marks the thread started, and whether the caller is the one to start it; otherwise
    /// wakes the loop for what the caller just queued. Under the mailbox lock.
    private func startsThread(_ mailbox: inout Mailbox) -> Bool {
        guard mailbox.threadStarted else {
            mailbox.threadStarted = true
            return true
        }
        wake(&mailbox)
        return false
    }

    private func startLoopThread() {
        let thread = Thread { [self] in
            Self.nameCurrentThread()
            var loop = CurlLoop(engine: self, multi: multi.pointer)
            loop.run()
        }
        thread.name = Self.threadName
        thread.start()
    }

    /// The loop thread's name, as debuggers, `top -H` and `/proc/<pid>/task/*/comm` show it.
    static let threadName = "halley.curl"

    /// Gives the calling thread ``threadName`` where the kernel keeps it: Foundation on Linux
    /// keeps `Thread.name` to itself, and Swift's Glibc module leaves `pthread_setname_np`
    /// out, so the thread writes its own `comm` (proc(5)). Nothing depends on it succeeding.
    private static func nameCurrentThread() {
        #if os(Linux)
            try? FileHandle(forWritingAtPath: "/proc/thread-self/comm")?.write(contentsOf: Data(threadName.utf8))
        #endif
    }

    /// Cancels a transfer: its handle is removed at once and its caller gets
    /// `CancellationError`. Nothing happens when it already finished; before its start it
    /// makes the start answer `CancellationError` at once (commands run in order).
    func cancel(_ transfer: CurlTransfer) {
        mailbox.withLock { mailbox in
            mailbox.commands.append(.cancel(transfer))
            wake(&mailbox)
        }
    }

    /// Ends the loop thread once it has cancelled what is still running.
    func stop() {
        mailbox.withLock { mailbox in
            mailbox.stopping = true
            wake(&mailbox)
        }
    }

    /// Wakes the loop if it sleeps; called under the mailbox lock, so never after ``close()``.
    /// One wake-up per sleep: the loop takes every command queued until it takes them, so the
    /// commands that follow in the same burst need no system call of their own.
    private func wake(_ mailbox: inout Mailbox) {
        guard mailbox.threadStarted && mailbox.sleeping && !mailbox.closed else { return }
        mailbox.sleeping = false
        _ = halley_curl_multi_wakeup(multi.pointer)
    }

    // MARK: From the loop thread

    /// The tasks' jobs queued since the last call, traded for `taken`, which the loop hands
    /// in empty: the two arrays take turns, so neither is copied or allocated again (emptying
    /// an array that was just returned, and so shared, allocated one as large as the last
    /// burst every time). The loop is awake: what the jobs queue while they run needs no
    /// wake-up.
    fileprivate func takeJobs(into taken: inout [UnownedJob]) {
        mailbox.withLock { mailbox in
            mailbox.sleeping = false
            if !mailbox.jobs.isEmpty { swap(&mailbox.jobs, &taken) }
        }
    }

    /// The commands queued since the last call, traded for `taken` as ``takeJobs(into:)``
    /// trades jobs, and whether to stop. The loop is awake.
    fileprivate func takeCommands(into taken: inout [Command]) -> Bool {
        mailbox.withLock { mailbox in
            mailbox.sleeping = false
            if !mailbox.commands.isEmpty { swap(&mailbox.commands, &taken) }
            return mailbox.stopping
        }
    }

    /// Whether the loop may sleep: no command waits. From here until ``takeCommands(into:)`` every
    /// new command wakes it (a wake-up sent before the poll makes the poll return at once).
    fileprivate func maySleep() -> Bool {
        mailbox.withLock { mailbox in
            guard mailbox.commands.isEmpty && mailbox.jobs.isEmpty && !mailbox.stopping else { return false }
            mailbox.sleeping = true
            return true
        }
    }

    /// No more wake-ups: the multi handle is about to be cleaned up. Returns what was still
    /// queued; jobs queued from now on go to the global executor.
    fileprivate func close() -> (commands: [Command], jobs: [UnownedJob]) {
        mailbox.withLock { mailbox in
            mailbox.closed = true
            defer {
                mailbox.commands.removeAll()
                mailbox.jobs.removeAll()
            }
            return (mailbox.commands, mailbox.jobs)
        }
    }
}

/// The engine as a task executor: a call whose requester is a ``CurlRequester`` runs its
/// tasks on the loop thread (``RequestPipeline/withinDeadline(_:)`` prefers it), so a
/// finished transfer resumes its caller without waking another thread, and the caller's next
/// transfers start without waking the loop. Jobs queued after the loop ended run on the
/// global executor: a task is never left without a thread. (Apple platforms have task
/// executors from these versions on; before them no job ever reaches the loop.)
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension CurlEngine: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let (accepted, startThread) = mailbox.withLock { mailbox -> (Bool, Bool) in
            guard !mailbox.closed else { return (false, false) }
            mailbox.jobs.append(job)
            return (true, startsThread(&mailbox))
        }
        if startThread { startLoopThread() }
        if !accepted { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// Runs the jobs queued since the last call, on the loop thread; `jobs` is the loop's
    /// empty array to trade for them, and is empty again after.
    fileprivate func runJobs(_ jobs: inout [UnownedJob]) {
        takeJobs(into: &jobs)
        guard !jobs.isEmpty else { return }
        let executor = asUnownedTaskExecutor()
        for job in jobs { job.runSynchronously(on: executor) }
        jobs.removeAll(keepingCapacity: true)
    }

    /// Hands jobs the ended loop will not run to the global executor.
    fileprivate static func forward(_ jobs: [UnownedJob]) {
        for job in jobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }
}

/// The multi handle's pointer, shared between the engine and its loop thread.
///
/// Unchecked sendability is sound: the loop thread is the only one that uses the handle,
/// except for `curl_multi_wakeup`, which libcurl documents as callable from any thread, and
/// which ``CurlEngine`` calls only under its mailbox lock while `closed` is false; the loop
/// sets `closed` under the same lock before `curl_multi_cleanup`. Before the thread starts,
/// the engine's `init` and `deinit` use it with no other thread holding it.
private struct MultiHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The loop thread's own state: the running transfers. Created and used on that thread
/// only, as a local variable of it: a value, so that its tables are checked for exclusive
/// access when compiled rather than on every access at run time, as a class's would be.
private struct CurlLoop {
    private let engine: CurlEngine
    private let multi: OpaquePointer
    /// The transfers whose handles are in the multi handle, each knowing its index: added
    /// and removed without hashing (a finished transfer is found through its handle).
    private var running: [CurlTransfer] = []
    /// Easy handles kept for the next transfers, their shared options set: making one
    /// allocates libcurl's buffers and sets a dozen options.
    private var idle: [CurlHandle] = []
    private static let maxIdle = 16
    /// The TLS version of each connection by its addresses, for measured exchanges that
    /// reuse one (libcurl names the version only when it connects). Only measured exchanges
    /// add to it, a handful of entries per connection made with `-v`.
    private var tlsVersions: [String: String] = [:]

    init(engine: CurlEngine, multi: OpaquePointer) {
        self.engine = engine
        self.multi = multi
    }

    mutating func run() {
        // The process's exit stops every loop and waits for it (see `halley_curl_loop_began`).
        let exitingAtStart = halley_curl_loop_began(multi) == 0
        // The loop's halves of the mailbox's two queues (see `takeJobs(into:)`), empty between
        // turns: locals, so that handling a command may change the loop meanwhile.
        var jobs: [UnownedJob] = []
        var commands: [CurlEngine.Command] = []
        while true {
            // The tasks first: what they start is added below, before libcurl runs.
            if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) { engine.runJobs(&jobs) }
            let stopping = engine.takeCommands(into: &commands)
            for command in commands { handle(command) }
            commands.removeAll(keepingCapacity: true)
            if stopping || exitingAtStart || halley_curl_process_exiting() != 0 { break }
            var stillRunning: Int32 = 0
            _ = halley_curl_multi_perform(multi, &stillRunning)
            collectFinished()
            // Sleeps until a socket is ready, libcurl's own next timeout (which it applies
            // when shorter than ours), or a wake-up. The timeout only bounds how long an idle
            // loop sleeps; new commands always wake it. With commands waiting it polls without
            // sleeping, so sockets are still serviced in between.
            _ = halley_curl_multi_poll(multi, engine.maySleep() ? (running.isEmpty ? 60_000 : 1_000) : 0)
        }
        while let transfer = running.last { cancel(transfer) }
        // Nothing can start after the requester is gone (each call holds it), but a command
        // that did arrive is answered rather than left waiting forever.
        let (unanswered, unrun) = engine.close()
        for case .start(let transfer) in unanswered {
            transfer.takeContinuation()?.resume(throwing: CancellationError())
        }
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) { CurlEngine.forward(unrun) }
        halley_curl_loop_closing(multi)
        idle.removeAll()  // cleans the handles up
        _ = halley_curl_multi_cleanup(multi)
        halley_curl_loop_ended()
    }

    /// Takes the handle back once it is out of the multi handle (beyond the pool's size it
    /// is cleaned up when the last reference goes).
    private mutating func recycle(_ handle: CurlHandle) {
        if idle.count < Self.maxIdle { idle.append(handle) }
    }

    private mutating func handle(_ command: CurlEngine.Command) {
        switch command {
        case .start(let transfer):
            guard case .waiting = transfer.phase else {
                // Cancelled before it started.
                transfer.phase = .finished
                transfer.takeContinuation()?.resume(throwing: CancellationError())
                return
            }
            transfer.phase = .finished
            let handle: CurlHandle
            do {
                handle = try idle.popLast() ?? CurlHandle(setup: engine.setup)
            } catch {
                transfer.takeContinuation()?.resume(throwing: error)
                return
            }
            transfer.lend(handle)
            do {
                // A handle whose options failed half-way is not reused.
                try transfer.prepare()
            } catch {
                transfer.takeContinuation()?.resume(throwing: error)
                return
            }
            guard halley_curl_multi_add_handle(multi, handle.easy) == 0 else {
                transfer.takeContinuation()?.resume(
                    throwing: CurlUnavailableError(reason: "curl_multi_add_handle failed"))
                return
            }
            transfer.phase = .running
            transfer.runningIndex = running.count
            running.append(transfer)
        case .cancel(let transfer):
            cancel(transfer)
        }
    }

    private mutating func cancel(_ transfer: CurlTransfer) {
        switch transfer.phase {
        case .waiting:
            // Its start command comes next, and answers at once.
            transfer.phase = .cancelled
        case .running:
            _ = halley_curl_multi_remove_handle(multi, transfer.easy)
            recycle(transfer.handle)
            finish(transfer, with: .failure(CancellationError()))
        case .cancelled, .finished:
            break
        }
    }

    /// Takes a running transfer out of the list and resumes its caller: the last the loop
    /// does with it.
    private mutating func finish(_ transfer: CurlTransfer, with outcome: Result<CurlReply, any Error>) {
        let last = running.removeLast()
        if last !== transfer {
            running[transfer.runningIndex] = last
            last.runningIndex = transfer.runningIndex
        }
        transfer.phase = .finished
        transfer.takeContinuation()?.resume(with: outcome)
    }

    private mutating func collectFinished() {
        var easy: OpaquePointer?
        var code: Int32 = 0
        while halley_curl_multi_next_done(multi, &easy, &code) == 1, let finished = easy {
            var context: UnsafeMutableRawPointer?
            _ = halley_curl_easy_getinfo_pointer(finished, CurlABI.Info.privateData, &context)
            if let context { CurlTransfer.from(context).noteMetrics(tlsVersions: &tlsVersions) }
            _ = halley_curl_multi_remove_handle(multi, finished)
            guard let context else { continue }
            let transfer = CurlTransfer.from(context)
            let outcome = transfer.outcome(code)
            // Out of the multi handle, so libcurl calls nothing back with its pointer.
            recycle(transfer.handle)
            finish(transfer, with: outcome)
        }
    }
}
