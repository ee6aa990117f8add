/// Whether a measurement met its target.
enum Verdict: String, Sendable {
    /// Within the target.
    case pass = "PASS"
    /// Outside the target: a performance finding, not an error.
    case miss = "MISS"
    /// No target; reported for context.
    case info = "INFO"
    /// A correctness check failed (the run exits non-zero).
    case fail = "FAIL"
}

/// What a measurement is compared with.
struct Target: Sendable {
    enum Comparison: String, Sendable {
        case atMost = "<="
        case equal = "=="
    }

    let comparison: Comparison
    let value: Double

    static func atMost(_ value: Double) -> Target { Target(comparison: .atMost, value: value) }
    static func equal(_ value: Double) -> Target { Target(comparison: .equal, value: value) }

    func isMet(by measured: Double) -> Bool {
        switch comparison {
        case .atMost: return measured <= value
        case .equal: return measured == value
        }
    }
}

/// How a metric's numbers are shown.
enum MetricUnit: String, Sendable {
    /// A dimensionless ratio, shown as `1.03×`.
    case ratio
    /// Seconds, shown in s, ms or µs.
    case seconds
    /// Bytes, shown in KiB or MiB.
    case bytes
    /// A count, shown as an integer.
    case count
    /// Operations per second, shown as k/s or M/s.
    case perSecond = "per_second"
}

/// One reported number: a median with its spread, or a single exact value.
struct Metric: Sendable {
    /// A stable identifier for machine-readable output, e.g. `ratio`.
    let id: String
    /// What it is, for people.
    let label: String
    let unit: MetricUnit
    /// The headline number: the median of ``samples``, or the single value.
    let value: Double
    /// The repetitions behind ``value``; `nil` for single values.
    let samples: Samples?
    let target: Target?
    let verdict: Verdict

    /// A metric from repeated measurements; the verdict compares the median.
    static func measured(
        _ id: String, _ label: String, unit: MetricUnit, _ samples: Samples, target: Target? = nil
    ) -> Metric {
        let median = samples.median
        return Metric(
            id: id, label: label, unit: unit, value: median, samples: samples, target: target,
            verdict: target.map { $0.isMet(by: median) ? .pass : .miss } ?? .info)
    }

    /// A single value. With `mustMeet`, missing the target is a failure, not a miss.
    static func single(
        _ id: String, _ label: String, unit: MetricUnit, _ value: Double, target: Target? = nil, mustMeet: Bool = false
    ) -> Metric {
        let verdict: Verdict
        if let target {
            verdict = target.isMet(by: value) ? .pass : (mustMeet ? .fail : .miss)
        } else {
            verdict = .info
        }
        return Metric(id: id, label: label, unit: unit, value: value, samples: nil, target: target, verdict: verdict)
    }
}

/// The outcome of one scenario.
struct ScenarioResult: Sendable {
    /// The scenario's name, as `--scenario` takes it.
    let name: String
    /// A one-line description.
    let title: String
    /// The scenario's inputs (sizes, latencies, limits), in order.
    var parameters: [(String, String)]
    var metrics: [Metric]
    /// Observations worth reading next to the numbers.
    var notes: [String]
    /// Set when the scenario could not run to the end.
    var error: String?

    init(
        name: String, title: String, parameters: [(String, String)] = [], metrics: [Metric] = [],
        notes: [String] = [], error: String? = nil
    ) {
        self.name = name
        self.title = title
        self.parameters = parameters
        self.metrics = metrics
        self.notes = notes
        self.error = error
    }

    /// Whether a correctness check failed or the scenario did not finish.
    var failed: Bool { error != nil || metrics.contains { $0.verdict == .fail } }
}
