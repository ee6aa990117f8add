import Foundation
import Testing

@testable import Halley
@testable import HalleyHAL
@testable import HalleyTransport

/// `ExchangeStateMachine`: the retry, refresh and revalidation decisions of one exchange,
/// driven event by event with no requester, no clock and no I/O (the pipeline's suites run
/// the same rules over requesters).
@Suite struct ExchangeStateMachineTests {
    static let url = URL(string: "https://api.example.com/orders/1")!

    /// An action as the tests compare it: the errors by code and words.
    enum Step: Equatable {
        case send(Int, rebuild: Bool, conditional: Bool)
        case useCached
        case useRevalidated
        case finish(storing: Bool)
        case refresh(String)
        case retry(Int, Duration, String)
        case fail(HalleyError.Code, String)
    }

    /// A policy without jitter, so its delays are exact: 100 ms, 200 ms, 400 ms …
    static func policy(_ attempts: Int, methods: Set<RequestMethod>? = nil, transport: Bool = true) -> RetryPolicy {
        var policy = RetryPolicy(
            maxAttempts: attempts, baseDelay: .milliseconds(100), jitter: 0, retriesTransportErrors: transport)
        if let methods { policy.retryableMethods = methods }
        return policy
    }

    static func machine(
        _ method: RequestMethod = .get, policy: RetryPolicy = .none, refreshes: Bool = false,
        acceptsNotModified: Bool = false, caches: Bool = false
    ) -> ExchangeStateMachine {
        ExchangeStateMachine(
            method: method, retryPolicy: policy, refreshesCredentials: refreshes,
            acceptsNotModified: acceptsNotModified,
            caches: caches)
    }

    static func response(_ status: Int, headers: HeaderFields = [:]) -> ResourceResponse {
        ResourceResponse(status: status, headers: headers, url: url, body: Data())
    }

    /// The words of the error an answer of `status` fails with.
    static func statusLine(_ status: Int) -> String { HTTPError(response: response(status)).statusLine }

    static func transportError(_ code: HalleyError.Code = .transport, underlying: (any Error)? = nil) -> HalleyError {
        HalleyError(
            code: code, includePath: "orders", url: url, message: "the connection was reset", underlying: underlying)
    }

    // MARK: Plain answers

    @Test func aGetIsSentAsBuiltAndItsSuccessIsTheAnswer() {
        var machine = Self.machine()
        #expect(!machine.looksUpCache)
        #expect(!machine.invalidatesOnAnswer)
        #expect(machine.start(cached: .none).step == .send(1, rebuild: false, conditional: false))
        #expect(machine.received(Self.response(200), trusted: true).step == .finish(storing: false))
    }

    @Test func theCacheKeepsOnlyTheSuccessOfAGet() {
        var get = Self.machine(caches: true)
        #expect(get.looksUpCache)
        _ = get.start(cached: .none)
        #expect(get.received(Self.response(200), trusted: true).step == .finish(storing: true))

        var post = Self.machine(.post, caches: true)
        #expect(!post.looksUpCache)
        #expect(post.invalidatesOnAnswer)
        _ = post.start(cached: .none)
        #expect(post.received(Self.response(201), trusted: true).step == .finish(storing: false))

        for method in [RequestMethod.head, .options] { #expect(!Self.machine(method).invalidatesOnAnswer) }
        for method in [RequestMethod.put, .patch, .delete] { #expect(Self.machine(method).invalidatesOnAnswer) }
    }

    @Test func anErrorStatusFailsWithItsStatusLineAndNoAttemptCountAfterOne() {
        var machine = Self.machine(policy: Self.policy(3))
        _ = machine.start(cached: .none)
        let action = machine.received(Self.response(404), trusted: true)
        #expect(action.step == .fail(.http, Self.statusLine(404)))
        guard case .fail(let error) = action else { return }
        #expect(error.includePath == "orders")
        #expect(error.url == Self.url)
        #expect((error.underlying as? HTTPError)?.status == 404)
    }

    // MARK: Retries

    @Test func aRetryableStatusIsRetriedUpToTheLimitWithTheBackoff() {
        var machine = Self.machine(policy: Self.policy(3))
        #expect(machine.start(cached: .none).step == .send(1, rebuild: false, conditional: false))
        #expect(machine.received(Self.response(503), trusted: true).step == .retry(2, .milliseconds(100), "HTTP 503"))
        #expect(machine.retryTimerFired().step == .send(2, rebuild: true, conditional: false))
        #expect(machine.received(Self.response(502), trusted: true).step == .retry(3, .milliseconds(200), "HTTP 502"))
        #expect(machine.retryTimerFired().step == .send(3, rebuild: true, conditional: false))
        #expect(
            machine.received(Self.response(503), trusted: true).step
                == .fail(.http, Self.statusLine(503) + " (after 3 attempts)"))
        #expect(machine.attempt == 3)
    }

    @Test func aRetryThatSucceedsIsTheAnswer() {
        var machine = Self.machine(policy: Self.policy(3), caches: true)
        _ = machine.start(cached: .none)
        _ = machine.received(Self.response(504), trusted: true)
        _ = machine.retryTimerFired()
        #expect(machine.received(Self.response(200), trusted: true).step == .finish(storing: true))
    }

    @Test func retryAfterReplacesTheBackoffUpToItsCap() {
        var policy = Self.policy(3)
        policy.maxRetryAfter = .seconds(5)
        var machine = Self.machine(policy: policy)
        _ = machine.start(cached: .none)
        let soon = Self.response(429, headers: ["Retry-After": "2"])
        #expect(machine.received(soon, trusted: true).step == .retry(2, .seconds(2), "HTTP 429"))
        _ = machine.retryTimerFired()
        let late = Self.response(503, headers: ["Retry-After": "3600"])
        #expect(machine.received(late, trusted: true).step == .retry(3, .seconds(5), "HTTP 503"))
    }

    @Test func aStatusOutsideThePolicyIsNotRetried() {
        var machine = Self.machine(policy: Self.policy(3))
        _ = machine.start(cached: .none)
        #expect(machine.received(Self.response(500), trusted: true).step == .fail(.http, Self.statusLine(500)))
    }

    @Test func theDefaultPolicyNeverRetries() {
        var machine = Self.machine(policy: RequestPolicy.defaultRetryPolicy)
        _ = machine.start(cached: .none)
        #expect(machine.received(Self.response(503), trusted: true).step == .fail(.http, Self.statusLine(503)))
        var failing = Self.machine(policy: RequestPolicy.defaultRetryPolicy)
        _ = failing.start(cached: .none)
        #expect(failing.failed(Self.transportError()).step == .fail(.transport, "the connection was reset"))
    }

    @Test func anUnsafeMethodIsRetriedOnlyWhenThePolicyListsIt() {
        var post = Self.machine(.post, policy: Self.policy(3))
        _ = post.start(cached: .none)
        #expect(post.received(Self.response(503), trusted: true).step == .fail(.http, Self.statusLine(503)))
        var failing = Self.machine(.patch, policy: Self.policy(3))
        _ = failing.start(cached: .none)
        #expect(failing.failed(Self.transportError()).step == .fail(.transport, "the connection was reset"))

        var optedIn = Self.machine(.post, policy: Self.policy(2, methods: [.post]))
        _ = optedIn.start(cached: .none)
        #expect(optedIn.received(Self.response(503), trusted: true).step == .retry(2, .milliseconds(100), "HTTP 503"))
        #expect(optedIn.retryTimerFired().step == .send(2, rebuild: true, conditional: false))
        #expect(
            optedIn.received(Self.response(503), trusted: true).step
                == .fail(.http, Self.statusLine(503) + " (after 2 attempts)"))
    }

    @Test func transportErrorsAndTimeoutsAreRetriedWithTheirMessageAsTheReason() {
        var machine = Self.machine(policy: Self.policy(3))
        _ = machine.start(cached: .none)
        #expect(machine.failed(Self.transportError()).step == .retry(2, .milliseconds(100), "the connection was reset"))
        _ = machine.retryTimerFired()
        #expect(
            machine.failed(Self.transportError(.timeout)).step
                == .retry(3, .milliseconds(200), "the connection was reset"))
        _ = machine.retryTimerFired()
        #expect(
            machine.failed(Self.transportError()).step
                == .fail(.transport, "the connection was reset (after 3 attempts)"))
    }

    @Test func whatAnotherAttemptCannotCureIsNotRetried() {
        let unusable = UnsupportedSettingsError(
            requester: "FileRequester", settings: ["a proxy"], advice: "use another")
        let permanent = TransportError(code: .other, url: Self.url, underlying: unusable)
        let failures = [
            Self.transportError(underlying: unusable), Self.transportError(underlying: permanent),
            Self.transportError(.limitExceeded), Self.transportError(.http),
        ]
        for failure in failures {
            var machine = Self.machine(policy: Self.policy(3))
            _ = machine.start(cached: .none)
            #expect(machine.failed(failure).step == .fail(failure.code, "the connection was reset"))
        }
        var noTransport = Self.machine(policy: Self.policy(3, transport: false))
        _ = noTransport.start(cached: .none)
        #expect(noTransport.failed(Self.transportError()).step == .fail(.transport, "the connection was reset"))
        // The same policy still retries statuses.
        var statuses = Self.machine(policy: Self.policy(3, transport: false))
        _ = statuses.start(cached: .none)
        #expect(statuses.received(Self.response(503), trusted: true).step == .retry(2, .milliseconds(100), "HTTP 503"))
    }

    // MARK: Credential refresh

    @Test func a401FromATrustedOriginRefreshesOnceThenResends() {
        var machine = Self.machine(refreshes: true)
        _ = machine.start(cached: .none)
        #expect(machine.received(Self.response(401), trusted: true).step == .refresh(Self.statusLine(401)))
        #expect(machine.credentialsRefreshed().step == .send(2, rebuild: true, conditional: false))
        // A second 401 after fresh credentials is the answer.
        #expect(
            machine.received(Self.response(401), trusted: true).step
                == .fail(.http, Self.statusLine(401) + " (after 2 attempts)"))
    }

    @Test func aRefreshedRequestCanSucceed() {
        var machine = Self.machine(refreshes: true, caches: true)
        _ = machine.start(cached: .none)
        _ = machine.received(Self.response(401), trusted: true)
        _ = machine.credentialsRefreshed()
        #expect(machine.received(Self.response(200), trusted: true).step == .finish(storing: true))
    }

    @Test func no401IsRefreshedWithoutARefresherOrFromAnUntrustedOrigin() {
        var untrusted = Self.machine(refreshes: true)
        _ = untrusted.start(cached: .none)
        #expect(untrusted.received(Self.response(401), trusted: false).step == .fail(.http, Self.statusLine(401)))

        var noRefresher = Self.machine()
        _ = noRefresher.start(cached: .none)
        #expect(noRefresher.received(Self.response(401), trusted: true).step == .fail(.http, Self.statusLine(401)))
    }

    @Test func aRefreshDoesNotUseUpARetry() {
        var machine = Self.machine(policy: Self.policy(3), refreshes: true)
        _ = machine.start(cached: .none)
        #expect(machine.received(Self.response(401), trusted: true).step == .refresh(Self.statusLine(401)))
        #expect(machine.credentialsRefreshed().step == .send(2, rebuild: true, conditional: false))
        #expect(machine.received(Self.response(503), trusted: true).step == .retry(3, .milliseconds(100), "HTTP 503"))
        #expect(machine.retryTimerFired().step == .send(3, rebuild: true, conditional: false))
        #expect(machine.received(Self.response(503), trusted: true).step == .retry(4, .milliseconds(200), "HTTP 503"))
        #expect(machine.retryTimerFired().step == .send(4, rebuild: true, conditional: false))
        // 401 is not a retryable status, and the one refresh is spent.
        #expect(
            machine.received(Self.response(401), trusted: true).step
                == .fail(.http, Self.statusLine(401) + " (after 4 attempts)"))
    }

    // MARK: Cache and revalidation

    @Test func aFreshEntryAnswersWithNoRequest() {
        var machine = Self.machine(caches: true)
        #expect(machine.start(cached: .fresh).step == .useCached)
    }

    @Test func aStaleEntryWithAValidatorIsRevalidatedAndA304ConfirmsIt() {
        var machine = Self.machine(caches: true)
        #expect(machine.start(cached: .revalidatable).step == .send(1, rebuild: false, conditional: true))
        #expect(machine.received(Self.response(304), trusted: true).step == .useRevalidated)
    }

    @Test func aRevalidationAnsweredWithANewBodyReplacesTheEntry() {
        var machine = Self.machine(caches: true)
        _ = machine.start(cached: .revalidatable)
        #expect(machine.received(Self.response(200), trusted: true).step == .finish(storing: true))
    }

    @Test func aRetriedRevalidationStaysConditional() {
        var machine = Self.machine(policy: Self.policy(2), caches: true)
        _ = machine.start(cached: .revalidatable)
        _ = machine.received(Self.response(503), trusted: true)
        #expect(machine.retryTimerFired().step == .send(2, rebuild: true, conditional: true))
        #expect(machine.received(Self.response(304), trusted: true).step == .useRevalidated)
    }

    @Test func aStaleEntryWithoutAValidatorIsAPlainRequestAndA304ConfirmsNothing() {
        var machine = Self.machine(caches: true)
        #expect(machine.start(cached: .stale).step == .send(1, rebuild: false, conditional: false))
        #expect(machine.received(Self.response(304), trusted: true).step == .fail(.http, Self.statusLine(304)))
    }

    @Test func aRequestWithItsOwnValidatorsTakesA304AsItsAnswer() {
        var machine = Self.machine(acceptsNotModified: true, caches: true)
        #expect(!machine.looksUpCache)
        _ = machine.start(cached: .none)
        #expect(machine.received(Self.response(304), trusted: true).step == .finish(storing: false))
        var changed = Self.machine(acceptsNotModified: true, caches: true)
        _ = changed.start(cached: .none)
        #expect(changed.received(Self.response(200), trusted: true).step == .finish(storing: true))
    }
}

extension ExchangeStateMachine {
    /// ``received(_:to:includePath:scope:)`` for the tests' request, from an origin the
    /// scope trusts or not.
    fileprivate mutating func received(_ response: ResourceResponse, trusted: Bool) -> Action {
        let url = ExchangeStateMachineTests.url
        let origin = trusted ? Origin(url) : Origin(URL(string: "https://elsewhere.example.com")!)
        return received(
            response, to: LazyURL(url), includePath: "orders",
            scope: CredentialScope(headerNames: [], trustedOrigins: [origin]))
    }
}

extension ExchangeStateMachine.Action {
    fileprivate var step: ExchangeStateMachineTests.Step {
        switch self {
        case .send(let attempt, let rebuild, let conditional):
            .send(attempt, rebuild: rebuild, conditional: conditional)
        case .useCached: .useCached
        case .useRevalidated: .useRevalidated
        case .finish(let storing): .finish(storing: storing)
        case .refreshCredentials(let rejection): .refresh(rejection.message)
        case .retry(let attempt, let delay, let reason): .retry(attempt, delay, reason)
        case .fail(let error): .fail(error.code, error.message)
        }
    }
}
