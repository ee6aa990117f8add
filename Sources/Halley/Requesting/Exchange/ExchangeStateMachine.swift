import Foundation
import HalleyHAL
import HalleyTransport

/// The decisions of one exchange (one request with the whole policy), apart from the code
/// that awaits its I/O: whether the cache answers, when an attempt is sent again and after
/// how long, when credentials are refreshed, and what the exchange ends with.
///
/// ``RequestPipeline`` only runs it: it feeds each event (an attempt's response or failure,
/// a refresh done, a retry's pause over) into the machine and performs the action it gets
/// back. The machine awaits nothing and reads no clock, so tests drive it event by event
/// without a requester.
///
/// Redirects are not among its decisions: a requester follows them itself, by the rules of
/// ``RedirectChain``, so the pipeline only ever sees a redirect's last answer.
///
/// Kept to fixed-size values: the pipeline holds it across every suspension point of the
/// exchange, and an async function allocates each run-time-sized value of its frame (a clock
/// instant, a cache entry) on entry. For the same reason the retry policy is kept only when
/// it can retry, so the default exchange copies none of its sets, and the actions that carry
/// an error hold it boxed: they end an exchange or nearly, while every exchange moves the
/// action it sends with, which is then a few words rather than an error's size.
struct ExchangeStateMachine: Sendable {
    /// What the cache holds for the request, as ``start(cached:)`` is told.
    enum Cached: Sendable, Equatable {
        /// Nothing, or the exchange does not use the cache.
        case none
        /// A fresh entry: the answer, with no request.
        case fresh
        /// A stale entry with a validator (`ETag` or `Last-Modified`) to revalidate it with.
        case revalidatable
        /// A stale entry without a validator: a `304` to a plain request confirms nothing
        /// (RFC 9111, 4.3.1), so the request goes as if nothing were cached.
        case stale
    }

    /// What the pipeline does next.
    enum Action: Sendable {
        /// Send attempt `attempt`: the built request when `rebuild` is `false`, a newly built
        /// one (fresh headers and credentials) when it is `true`; with the cached entry's
        /// validators when `conditional`.
        case send(attempt: Int, rebuild: Bool, conditional: Bool)
        /// The fresh cached entry is the answer.
        case useCached
        /// A `304` confirmed the cached entry: it is the answer, refreshed with the `304`.
        case useRevalidated
        /// The response just received is the answer; `storing`: the cache keeps it.
        case finish(storing: Bool)
        /// The response was a `401` from a trusted origin: refresh the credentials (failing
        /// with `rejection`'s words should that fail), then tell ``credentialsRefreshed()``.
        indirect case refreshCredentials(rejection: HalleyError)
        /// Tell observers attempt `attempt` is coming for `reason`, wait `delay`, then tell
        /// ``retryTimerFired()``.
        case retry(attempt: Int, delay: Duration, reason: String)
        /// The exchange fails with `error`.
        indirect case fail(HalleyError)
    }

    private enum Phase: Equatable {
        /// Before ``start(cached:)``.
        case idle
        /// An attempt is in flight.
        case sending
        /// A credential refresh is running.
        case refreshing
        /// A retry's pause is running.
        case waiting
        /// An answer or a failure ended the exchange.
        case finished
    }

    private var phase = Phase.idle
    /// Numbers every send, for events and ``HalleyError``'s "after N attempts".
    private(set) var attempt = 1
    /// Counts only what the retry policy allows: a credential refresh does not use up a retry.
    private var tries = 1
    /// Whether the exchange refreshed credentials: once, as a second `401` after fresh
    /// credentials is the answer.
    private var refreshed = false
    private var revalidating = false

    /// The retry policy when the method may be tried more than once; `nil` otherwise.
    private let retry: RetryPolicy?
    private let refreshes: Bool
    private let acceptsNotModified: Bool
    private let isGet: Bool
    private let caches: Bool
    /// Whether any answer to the request invalidates what it names (an unsafe method):
    /// the pipeline applies ``ResponseInvalidation`` before telling
    /// ``received(_:to:includePath:scope:)``.
    let invalidatesOnAnswer: Bool

    /// The machine for one request.
    ///
    /// - Parameters:
    ///   - retryPolicy: The call's policy; a method it does not list gets one attempt.
    ///   - refreshesCredentials: Whether a refresher can answer a `401`.
    ///   - acceptsNotModified: Whether the request carries its own validators, so a `304`
    ///     answers it (and the cache is not asked).
    ///   - caches: Whether there is a response cache.
    init(
        method: RequestMethod, retryPolicy: RetryPolicy, refreshesCredentials: Bool, acceptsNotModified: Bool,
        caches: Bool
    ) {
        // One attempt whatever the method (the default policy) needs no lookup of the method.
        retry =
            retryPolicy.maxAttempts != 1 && retryPolicy.retryableMethods.contains(method) ? retryPolicy : nil
        refreshes = refreshesCredentials
        self.acceptsNotModified = acceptsNotModified
        isGet = method == .get
        self.caches = caches
        // `isGet` first: most requests are GETs, and `isSafe` compares method names.
        invalidatesOnAnswer = !isGet && !method.isSafe
    }

    /// Whether the exchange asks the cache before sending: a `GET`, with a cache, that does
    /// not carry validators of its own (such a request asks the server whatever is cached).
    var looksUpCache: Bool { isGet && caches && !acceptsNotModified }

    /// The first event: what the cache holds (``Cached/none`` unless ``looksUpCache``).
    mutating func start(cached: Cached) -> Action {
        assert(phase == .idle, "an exchange starts once")
        if cached == .fresh {
            phase = .finished
            return .useCached
        }
        revalidating = cached == .revalidatable
        phase = .sending
        return .send(attempt: 1, rebuild: false, conditional: revalidating)
    }

    /// The attempt in flight was answered with `response`.
    ///
    /// The request's `location` and `includePath` name it in the error the exchange may end
    /// with, and `scope` says whether its origin may receive credentials (asked only for a
    /// `401` that a refresh could answer). They are lent for the call rather than kept: kept,
    /// every exchange would retain and release them for nothing.
    mutating func received(
        _ response: ResourceResponse, to location: LazyURL, includePath: String?, scope: CredentialScope
    ) -> Action {
        assert(phase == .sending, "a response answers an attempt in flight")
        let status = response.status
        if status == 304, revalidating {
            phase = .finished
            return .useRevalidated
        }
        if response.isSuccess || (status == 304 && acceptsNotModified) {
            phase = .finished
            return .finish(storing: response.isSuccess && isGet && caches)
        }
        let httpError = HTTPError(response: response)
        let error = HalleyError(
            code: .http, includePath: includePath, url: location.url, message: httpError.statusLine,
            underlying: httpError)
        if status == 401, !refreshed, refreshes, scope.trusts(location.url) {
            refreshed = true
            phase = .refreshing
            return .refreshCredentials(rejection: error)
        }
        guard let retry, tries < retry.maxAttempts, retry.retryableStatuses.contains(status) else {
            phase = .finished
            return .fail(error.after(attempts: attempt))
        }
        return retrying(retry, after: RetryPolicy.retryAfter(response.headers["Retry-After"]), reason: "HTTP \(status)")
    }

    /// The attempt in flight failed with `error` (a transport failure, a timeout, a limit).
    mutating func failed(_ error: HalleyError) -> Action {
        assert(phase == .sending, "a failure ends an attempt in flight")
        // A refused certificate or an unusable setting fails the same way every time.
        let permanent = (error.underlying as? any PermanentTransportError)?.isPermanent == true
        guard let retry, tries < retry.maxAttempts, retry.retriesTransportErrors, !permanent,
            error.code == .transport || error.code == .timeout
        else {
            phase = .finished
            return .fail(error.after(attempts: attempt))
        }
        return retrying(retry, after: nil, reason: error.message)
    }

    /// The refresh that ``Action/refreshCredentials(rejection:)`` asked for succeeded.
    mutating func credentialsRefreshed() -> Action {
        assert(phase == .refreshing, "only a refresh the machine asked for ends")
        return nextAttempt()
    }

    /// The pause that ``Action/retry(attempt:delay:reason:)`` asked for is over.
    mutating func retryTimerFired() -> Action {
        assert(phase == .waiting, "only a pause the machine asked for ends")
        tries += 1
        return nextAttempt()
    }

    private mutating func retrying(_ retry: RetryPolicy, after retryAfter: Duration?, reason: String) -> Action {
        phase = .waiting
        return .retry(attempt: attempt + 1, delay: retry.delay(after: tries, retryAfter: retryAfter), reason: reason)
    }

    /// Every attempt after the first is built anew, so it carries the credentials of now.
    private mutating func nextAttempt() -> Action {
        attempt += 1
        phase = .sending
        return .send(attempt: attempt, rebuild: true, conditional: revalidating)
    }
}
