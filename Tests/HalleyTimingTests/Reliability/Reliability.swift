import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// The reliability suites (issue #19): many calls at once against a slow, flaky and
/// sometimes wrong server (`HalleyTestSupport/chaos_http_server.py`), through every built-in HTTP
/// requester. They run one at a time: each loads the machine on its own, and the figures
/// they print (lines starting with `RELIABILITY`) are collected by `Tests/Soak/run.sh`.
@Suite(.serialized) enum Reliability {
    /// What each load test starts with: this run's scale, the shared chaos server, and a run
    /// of its own there (the server logs its faults and requests apart from the other tests').
    static func start() async throws -> (scale: ReliabilityScale, chaos: ChaosServer, run: String) {
        (ReliabilityScale.current, try await ChaosServer.shared(), ChaosServer.newRun())
    }

    /// Runs `body` for `0..<count` with at most `width` at once; results in index order.
    static func concurrently<Value: Sendable>(
        _ count: Int, width: Int, _ body: @escaping @Sendable (Int) async throws -> Value
    ) async throws -> [Value] {
        try await withThrowingTaskGroup(of: (Int, Value).self) { group in
            var results = [Value?](repeating: nil, count: count)
            var next = 0
            while next < min(width, count) {
                let index = next
                group.addTask { (index, try await body(index)) }
                next += 1
            }
            while let (index, value) = try await group.next() {
                results[index] = value
                if next < count {
                    let index = next
                    group.addTask { (index, try await body(index)) }
                    next += 1
                }
            }
            return results.compactMap { $0 }
        }
    }

    /// Prints one figure line for `Tests/Soak/run.sh` to collect.
    static func report(_ test: String, _ transport: Transport, _ figures: [(String, Any)]) {
        let text = figures.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
        print("RELIABILITY \(test) transport=\(transport) \(text)")
    }

    /// Where two JSON values first differ, for failure messages.
    static func firstDifference(_ actual: JSONValue?, _ expected: JSONValue?, at path: String = "$") -> String? {
        if actual == expected { return nil }
        switch (actual, expected) {
        case (.object(let a)?, .object(let b)?):
            for key in Set(a.keys).union(b.keys).sorted() {
                if let difference = firstDifference(a[key], b[key], at: path + "." + key) { return difference }
            }
            return nil
        case (.array(let a)?, .array(let b)?) where a.count == b.count:
            for (index, (x, y)) in zip(a, b).enumerated() {
                if let difference = firstDifference(x, y, at: path + "[\(index)]") { return difference }
            }
            return nil
        default:
            func show(_ value: JSONValue?) -> String { value.map { String($0.description.prefix(160)) } ?? "absent" }
            return "\(path): got \(show(actual)), expected \(show(expected))"
        }
    }
}

/// The token a test's header provider sends, replaced by each credential refresh.
final class ChaosTokens: Sendable {
    private let state: LockedValue<(token: String, refreshes: Int)>

    init(_ token: String) { state = LockedValue((token, 0)) }

    var current: String { state.get().token }
    /// How many times the refresh replaced the token.
    var refreshes: Int { state.get().refreshes }

    func replace(with token: String) {
        state.withLock {
            $0.token = token
            $0.refreshes += 1
        }
    }
}

extension Array where Element: Comparable {
    /// The elements in order, for comparing lists as multisets.
    var inOrder: [Element] { sorted() }
}

extension ContactsGraph.Placement: Comparable {
    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.includePath, lhs.url) < (rhs.includePath, rhs.url) }
}
