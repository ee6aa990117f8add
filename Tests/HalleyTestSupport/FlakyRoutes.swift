import Foundation
import Halley

extension InMemoryRequester {
    /// Answers `url` with `503` and `Retry-After: 0` to its first `failures` requests, then with
    /// `{"ok": true}`: a server that recovers, for the retry cases. `beforeAnswer` runs with the
    /// number of each request (from 1) before it is answered.
    public func registerRecovering(
        _ url: String, after failures: Int, beforeAnswer: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        let seen = Locked(0)
        register(url) { request in
            let attempt = seen.withLock { count -> Int in
                count += 1
                return count
            }
            await beforeAnswer(attempt)
            if attempt <= failures {
                return ResourceResponse(status: 503, headers: ["Retry-After": "0"], url: request.url, body: Data())
            }
            return ResourceResponse(url: request.url, body: Data(#"{"ok": true}"#.utf8))
        }
    }
}
