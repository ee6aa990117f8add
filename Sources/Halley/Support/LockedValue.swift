import Foundation

/// A value guarded by a lock, for the few places where synchronous code (a cancellation
/// handler, a completion callback, an observer) must share state with async code. The one
/// lock type of the package: the library, the `halley` tool and `halley-bench` all use it.
///
/// Unchecked sendability is sound here: `value` is private and every read and write
/// happens inside `lock.lock()`/`unlock()`, so no two threads touch it at once; `Value`
/// is itself `Sendable`, so handing it out of the lock is safe.
///
/// Guard real state, never an empty value (`LockedValue(())`): a zero-sized stored property
/// has the object's own address, so ThreadSanitizer sees every retain of the object as a
/// race with the locked access (a false report that failed CI once).
package final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    /// Unchecked: every access is inside `lock`, which is not recursive (a nested `withLock`
    /// deadlocks before it could overlap an access), so the runtime's exclusivity check
    /// (about 80 instructions per access, several per resource of a traversal) can never
    /// find a conflict.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        assert(MemoryLayout<Value>.size > 0, "LockedValue guards state; lock a value that has some")
        self.value = value
    }

    package func get() -> Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    package func set(_ newValue: Value) {
        lock.lock()
        value = newValue
        lock.unlock()
    }

    /// Stores `newValue` and returns the previous value, atomically.
    package func exchange(_ newValue: Value) -> Value {
        lock.lock()
        defer { lock.unlock() }
        let old = value
        value = newValue
        return old
    }

    /// Runs `body` with exclusive access.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
