import Halley

/// Counts the tasks that reach one point of a scenario, so that exactly one of them, the one
/// that completes the count, signals the measuring task for all.
final class Arrivals: Sendable {
    private let expected: Int
    private let arrived = LockedValue(0)

    init(expecting expected: Int) { self.expected = expected }

    /// Counts the caller in: `true` for the arrival that makes the count, and for no other.
    func arrive() -> Bool {
        arrived.withLock { value in
            value += 1
            return value == expected
        }
    }
}
