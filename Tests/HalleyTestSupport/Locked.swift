import Foundation

/// A value guarded by a lock, for the helpers' callbacks and timers that share state with
/// async code. The library's own lock is not public, and this target sees only Halley's
/// public API (it is built without testability in release builds too).
///
/// Unchecked sendability is sound here: `value` is private and every read and write happens
/// between `lock.lock()` and `unlock()`, so no two threads touch it at once; `Value` is itself
/// `Sendable`, so handing a copy out of the lock is safe.
public final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// A lock around `value`.
    public init(_ value: Value) {
        self.value = value
    }

    /// The value now.
    public func get() -> Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    /// Stores `newValue` and returns the previous value, atomically.
    public func exchange(_ newValue: Value) -> Value {
        lock.lock()
        defer { lock.unlock() }
        let old = value
        value = newValue
        return old
    }

    /// Runs `body` with exclusive access.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
