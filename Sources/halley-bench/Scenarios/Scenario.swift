/// One benchmark: sets up its own requester and data, measures, and reports metrics.
protocol Scenario: Sendable {
    /// The name `--scenario` takes, e.g. `decode`.
    var name: String { get }
    /// A one-line description.
    var title: String { get }
    /// Runs the scenario.
    ///
    /// - Throws: When the library fails a request the scenario expects to succeed.
    func run(_ settings: BenchSettings) async throws -> ScenarioResult
}

/// How hard to measure: the full run or the `--quick` smoke run.
struct BenchSettings: Sendable {
    /// Fewer repetitions and smaller sizes.
    let quick: Bool
    /// The requesters the transport scenario measures; empty for all.
    var requesters: [String] = []

    /// Repetitions per measurement, the first `warmups` of them discarded.
    var repetitions: Int { quick ? 3 : 7 }
    /// Leading repetitions that warm caches, allocators and the task pool, then are dropped.
    var warmups: Int { 1 }

    /// `full` normally, `quick` under `--quick`.
    func pick<T>(full: T, quick: T) -> T {
        self.quick ? quick : full
    }
}

/// Every scenario, in report order.
enum ScenarioRegistry {
    static let all: [any Scenario] = [
        CriticalPathScenario(),
        UnevenLatencyScenario(),
        WideFanOutScenario(),
        DecodeScenario(),
        DedupScenario(),
        URITemplateScenario(),
        ScaleScenario(),
        LimitScenario(),
        TransportScenario(),
        TraversalCostScenario(),
        NginxScenario(),
        CurlCostScenario(secure: false),
        CurlCostScenario(secure: true),
        StateScenario(),
        LiveScreensScenario(),
    ]

    /// The scenarios named, in the order given; all of them when `names` is empty.
    ///
    /// - Throws: ``ArgumentError`` for an unknown name.
    static func select(_ names: [String]) throws(ArgumentError) -> [any Scenario] {
        guard !names.isEmpty else { return all }
        var selected: [any Scenario] = []
        for name in names {
            guard let scenario = all.first(where: { $0.name == name }) else {
                throw ArgumentError(
                    "unknown scenario \"\(name)\"; one of: "
                        + all.map(\.name).joined(separator: ", "))
            }
            if !selected.contains(where: { $0.name == name }) { selected.append(scenario) }
        }
        return selected
    }
}

/// A precondition of a scenario that did not hold (a failed check, not a slow run).
struct BenchError: Error, Sendable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
