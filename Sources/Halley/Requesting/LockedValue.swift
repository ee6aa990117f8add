import Foundation

/// A value guarded by a lock, for the few places where synchronous code (a cancellation
/// handler, a completion callback) must share state with async code.
///
/// `@unchecked Sendable` is sound here: `value` is private and every read and write
/// happens inside `lock.lock()`/`unlock()`, so no two threads touch it at once; `Value`
/// is itself `Sendable`, so handing it out of the lock is safe.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set(_ newValue: Value) {
        lock.lock()
        value = newValue
        lock.unlock()
    }

    /// Stores `newValue` and returns the previous value, atomically.
    func exchange(_ newValue: Value) -> Value {
        lock.lock()
        defer { lock.unlock() }
        let old = value
        value = newValue
        return old
    }

    /// Runs `body` with exclusive access.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
