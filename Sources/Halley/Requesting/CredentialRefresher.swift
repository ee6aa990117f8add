import Foundation

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
/// call's HTTP error. Observers see ``TraversalEvent/credentialsRefreshStarted(url:)`` and
/// ``TraversalEvent/credentialsRefreshFinished(url:error:)``.
final class CredentialRefresher: Sendable {
    let action: @Sendable () async throws -> Void

    private struct State {
        /// How many refreshes have completed: a request built at an older generation carried
        /// credentials that were already replaced.
        var generation = 0
        var running: Task<Void, any Error>?
    }

    private let state = LockedValue(State())

    init(_ action: @escaping @Sendable () async throws -> Void) {
        self.action = action
    }

    /// The current generation; read before building a request.
    var generation: Int { state.get().generation }

    /// Makes sure the credentials are newer than `generation`: returns at once if a refresh
    /// already finished since, joins one that is running, or runs one.
    ///
    /// `started` and `finished` are called only by the caller that runs the refresh.
    func refresh(
        after generation: Int, started: @Sendable () -> Void, finished: @Sendable ((any Error)?) -> Void
    ) async throws {
        enum Plan {
            case done
            case join(Task<Void, any Error>)
            case run(Task<Void, any Error>)
        }
        let plan = state.withLock { state -> Plan in
            if state.generation > generation { return .done }
            if let running = state.running { return .join(running) }
            // Unstructured so that one caller's cancellation does not cancel the refresh the
            // others are waiting for. The generation moves before any waiter resumes.
            let task = Task<Void, any Error> {
                do {
                    try await self.action()
                    self.state.withLock { state in
                        state.generation += 1
                        state.running = nil
                    }
                } catch {
                    self.state.withLock { $0.running = nil }
                    throw error
                }
            }
            state.running = task
            return .run(task)
        }
        switch plan {
        case .done:
            return
        case .join(let task):
            try await task.value
        case .run(let task):
            started()
            let result = await task.result
            switch result {
            case .success:
                finished(nil)
            case .failure(let error):
                finished(error)
                throw error
            }
        }
    }
}
