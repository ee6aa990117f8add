import Foundation
import HalleyHAL

/// When and how often a failed request is tried again.
///
/// Retries happen on transport errors and on statuses that say "try later" (408, 429, 502,
/// 503, 504), only for idempotent methods unless you opt in, with exponential backoff and
/// jitter. Errors another attempt cannot cure are not retried: a certificate that was
/// refused (``TLSError``), a TLS or proxy setting that cannot be used or honoured
/// (``TLSConfigurationError``, ``UnsupportedSettingsError``), and credentials a proxy would
/// have seen in clear (``ProxyError``). A `Retry-After` header (seconds or an HTTP-date) replaces the computed delay,
/// capped by ``maxRetryAfter`` so a hostile server cannot park the call.
///
/// ```swift
/// var configuration = ResourceManager.Configuration()
/// configuration.retryPolicy = .standard                 // 3 attempts
/// configuration.retryPolicy.retryableMethods.insert(.post)  // opt in for POST
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included; 1 means no retries.
    public var maxAttempts: Int
    /// The delay before the first retry.
    public var baseDelay: Duration
    /// The longest computed delay.
    public var maxDelay: Duration
    /// The factor between consecutive delays.
    public var multiplier: Double
    /// The fraction of each delay drawn at random (0.2: ±20 %), so clients do not retry in step.
    public var jitter: Double
    /// Statuses worth retrying.
    public var retryableStatuses: Set<Int>
    /// Whether transport errors (and per-request timeouts) are retried.
    public var retriesTransportErrors: Bool
    /// Methods that may be retried; POST and PATCH are not idempotent, so they are left out.
    public var retryableMethods: Set<RequestMethod>
    /// The longest `Retry-After` honoured.
    public var maxRetryAfter: Duration

    /// Creates a policy.
    public init(
        maxAttempts: Int, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(10),
        multiplier: Double = 2, jitter: Double = 0.2, retryableStatuses: Set<Int> = [408, 429, 502, 503, 504],
        retriesTransportErrors: Bool = true,
        retryableMethods: Set<RequestMethod> = [.get, .head, .put, .delete, .options],
        maxRetryAfter: Duration = .seconds(60)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.multiplier = multiplier
        self.jitter = jitter
        self.retryableStatuses = retryableStatuses
        self.retriesTransportErrors = retriesTransportErrors
        self.retryableMethods = retryableMethods
        self.maxRetryAfter = maxRetryAfter
    }

    /// One attempt, no retries: the default, so nothing is sent twice unless asked for.
    public static let none = RetryPolicy(maxAttempts: 1)
    /// Three attempts with 200 ms, 400 ms backoff.
    public static let standard = RetryPolicy(maxAttempts: 3)

    /// The wait before attempt `attempt + 1` after attempt `attempt` failed.
    func delay(after attempt: Int, retryAfter: Duration?) -> Duration {
        if let retryAfter { return min(retryAfter, maxRetryAfter) }
        let ceiling = maxDelay.inSeconds
        var seconds = baseDelay.inSeconds * pow(multiplier, Double(attempt - 1))
        // Written so that a NaN (from a NaN multiplier) stops at the ceiling too.
        if !(seconds <= ceiling) { seconds = ceiling }
        // No uniform distribution spans an infinite range: an infinite jitter spreads as 1 does.
        if jitter > 0 { seconds *= 1 + Double.random(in: jitter.isFinite ? -jitter...jitter : -1...1) }
        // Past what 64 bits of nanoseconds hold (292 years), the ceiling itself.
        guard seconds < 9e9 else { return maxDelay }
        return .nanoseconds(Int64(max(0, seconds) * 1e9))
    }

    /// Reads `Retry-After` as delay-seconds or an HTTP-date (RFC 9110, 10.2.3).
    static func retryAfter(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return .seconds(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        let interval = date.timeIntervalSince(now)
        return .milliseconds(Int64(max(0, interval) * 1000))
    }
}
