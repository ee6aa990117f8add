import Foundation
import HalleyTestSupport

/// How much work the reliability suites do: a short version in every `swift test` (smaller
/// still under a sanitizer, whose runs CI pays for twice), and the full version that
/// `Tests/Soak/run.sh` runs with `HALLEY_RELIABILITY=full` in a release build.
///
/// The counts are per transport. Every version checks every result, the sockets open to the
/// chaos server's port, the server's view of every connection, and a share of successful
/// retries. The process-wide figures (resident size, heap, open descriptors) mean something
/// only when these suites have their process to themselves (``isAlone``): the full run, and
/// `.ci/test`'s load pass. Both assert them, the short version with wider bounds since its
/// few requests make them noisy; a plain `swift test`, which runs every suite at once,
/// prints them only. Only the full version holds calls to the 100 ms deadline bound.
struct ReliabilityScale: Sendable {
    /// Partial-mode traversals of the contacts graph under the mixed profile.
    let partialTraversals: Int
    /// Fail-fast traversals under the deadline profile (faults and stalls).
    let failFastTraversals: Int
    /// Small calls under 10 % transient faults with the standard retry policy.
    let retryCalls: Int
    /// Calls with a deadline under the deadline profile.
    let deadlineCalls: Int
    /// Concurrent callers sharing one manager, cache and token provider, per round.
    let callers: Int
    /// Rounds of ``callers``.
    let callerRounds: Int
    /// Traversals cancelled at random points.
    let cancellations: Int
    /// Requests through one long-lived manager, per cache setting.
    let soakRequests: Int
    /// How long requests race their cancellation in `halley-transport-probe --cancel-race`.
    let cancelRaceSeconds: Int
    /// Calls in flight at once in the traversal suites.
    let width: Int
    /// Whether this is the full version with nothing else running, outside a sanitizer: the
    /// process-wide figures are held to their tight bounds.
    let isFull: Bool
    /// Whether these suites have the test process to themselves (the full run, or `.ci/test`'s
    /// load pass, which sets `HALLEY_RELIABILITY_ALONE=1`): the process-wide figures are then
    /// asserted, not only printed.
    let isAlone: Bool
    /// The share of retried calls that must succeed. The server's faults are decided by seed,
    /// so the short versions' few calls always meet the same faults; the bound leaves room for
    /// a few more calls that the server failed three times in a row.
    let minimumRetrySuccessRate: Double
    /// How much longer than its deadline a call may run: 100 ms in the full version; the
    /// short one runs beside every other suite, under ThreadSanitizer too, on a loaded
    /// 2-core machine, so its bound is wide and the real figure comes from the full run.
    let deadlineOvershoot: Duration
    /// How much longer than its deadline a call may run when queued work waited up to `stall`
    /// meanwhile (see ``StallMonitor``): the short version adds that wait for each of the few
    /// hops that end a call (timer, cancellation, the waiting task), since none can run sooner;
    /// the full version runs alone and adds nothing.
    func allowedOvershoot(stall: Duration) -> Duration {
        isFull ? deadlineOvershoot : deadlineOvershoot + stall * 4
    }
    /// How long the chaos server may live.
    let serverLifetime: Duration

    static let current: ReliabilityScale = {
        let environment = ProcessInfo.processInfo.environment
        let full = environment["HALLEY_RELIABILITY"] == "full"
        let alone = full || environment["HALLEY_RELIABILITY_ALONE"] == "1"
        if full {
            return ReliabilityScale(
                partialTraversals: 1_000, failFastTraversals: 200, retryCalls: 1_000, deadlineCalls: 250,
                callers: 200, callerRounds: 5, cancellations: 500, soakRequests: 25_000, cancelRaceSeconds: 30,
                width: 16,
                isFull: !Sanitizer.isActive, isAlone: true, minimumRetrySuccessRate: 0.995,
                deadlineOvershoot: .milliseconds(Sanitizer.isActive ? 1_000 : 100),
                serverLifetime: .seconds(4 * 3600))
        }
        if Sanitizer.isActive {
            return ReliabilityScale(
                partialTraversals: 6, failFastTraversals: 3, retryCalls: 40, deadlineCalls: 8, callers: 100,
                callerRounds: 1, cancellations: 10, soakRequests: 300, cancelRaceSeconds: 3, width: 4, isFull: false,
                isAlone: alone, minimumRetrySuccessRate: 0.95, deadlineOvershoot: .seconds(2),
                serverLifetime: .seconds(1_800))
        }
        return ReliabilityScale(
            partialTraversals: 24, failFastTraversals: 8, retryCalls: 300, deadlineCalls: 24, callers: 200,
            callerRounds: 2, cancellations: 30, soakRequests: 1_500, cancelRaceSeconds: 3, width: 8, isFull: false,
            isAlone: alone, minimumRetrySuccessRate: 0.98, deadlineOvershoot: .seconds(1),
            serverLifetime: .seconds(1_800))
    }()
}
