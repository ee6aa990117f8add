import Foundation
import HalleyHAL

/// Refreshes credentials after a `401`, once for everyone who saw the same credentials
/// rejected: the recovery half of token authentication, in the spirit of Alamofire's
/// `AuthenticationInterceptor`.
///
/// Set it through ``ResourceManager/Configuration/refreshCredentials``; the manager's
/// ``ResourceManager/Configuration/headerProvider`` supplies the credentials, asked again for
/// every attempt:
///
/// ```swift
/// var configuration = ResourceManager.Configuration()
/// configuration.headerProvider = { ["Authorization": "Bearer \(await tokens.current())"] }
/// configuration.refreshCredentials = { try await tokens.refresh() }
/// ```
///
/// When a request to a trusted origin answers `401`, the refresh runs (concurrent `401`s
/// share one run, and a `401` for credentials that an earlier refresh already replaced only
/// retries), then the request is sent once more with fresh headers. A second `401` is the
/// call's HTTP error. Observers see ``HalleyEvent/credentialsRefreshStarted(url:)`` and
/// ``HalleyEvent/credentialsRefreshFinished(url:error:)``.
final class CredentialRefresher: Sendable {
    let action: @Sendable () async throws -> Void

    private struct State {
        /// How many refreshes have completed: a request built at an older generation carried
        /// credentials that were already replaced.
        var generation = 0
        var running = false
        /// The callers waiting for the running refresh, by id.
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiter = 0
    }

    private let state = LockedValue(State())

    init(_ action: @escaping @Sendable () async throws -> Void) {
        self.action = action
    }

    /// The current generation; read before building a request.
    var generation: Int { state.get().generation }

    /// Makes sure the credentials are newer than `generation`: returns at once if a refresh
    /// already finished since, waits for one that is running, or starts one.
    ///
    /// A caller that is cancelled (its deadline passed) stops waiting at once; the refresh
    /// goes on for the others. `started` is called by the caller that starts the refresh,
    /// `finished` when that refresh ends, even if its caller stopped waiting.
    func refresh(
        after generation: Int, started: @Sendable () -> Void, finished: @escaping @Sendable ((any Error)?) -> Void
    ) async throws {
        enum Plan {
            case done, cancelled, join, run
        }
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let plan = state.withLock { state -> Plan in
                    if state.generation > generation { return .done }
                    if Task.isCancelled { return .cancelled }
                    state.waiters[id] = continuation
                    if state.running { return .join }
                    state.running = true
                    return .run
                }
                switch plan {
                case .done:
                    continuation.resume()
                case .cancelled:
                    continuation.resume(throwing: CancellationError())
                case .join:
                    break
                case .run:
                    started()
                    // Unstructured so that one caller's cancellation does not cancel the refresh
                    // the others are waiting for. The generation moves before any waiter resumes.
                    Task { await self.run(finished: finished) }
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Runs the action once and answers everyone still waiting.
    private func run(finished: @Sendable ((any Error)?) -> Void) async {
        var failure: (any Error)?
        do {
            try await action()
        } catch {
            failure = error
        }
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            if failure == nil { state.generation += 1 }
            state.running = false
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        finished(failure)
        for waiter in waiters {
            if let failure { waiter.resume(throwing: failure) } else { waiter.resume() }
        }
    }
}
