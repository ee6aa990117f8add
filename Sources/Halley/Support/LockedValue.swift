import Foundation

#if os(Linux)
    import Synchronization
#endif

/// A value guarded by a lock, for the few places where synchronous code (a cancellation
/// handler, a completion callback, an observer) must share state with async code. The one
/// lock type of the package: the library, the `halley` tool and `halley-bench` all use it.
///
/// Unchecked sendability is sound here: the value is private and every read and write
/// happens inside the lock, so no two threads touch it at once; `Value` is itself
/// `Sendable`, so handing it out of the lock is safe.
///
/// Guard real state, never an empty value (`LockedValue(())`): a zero-sized stored property
/// has the object's own address, so ThreadSanitizer sees every retain of the object as a
/// race with the locked access (a false report that failed CI once).
///
/// On Linux the lock is the standard library's `Mutex`, held inside the object: one
/// allocation per value and a futex that takes no system call unless threads contend, where
/// `NSLock` costs three allocations (the box, the lock object, its `pthread_mutex_t`) and a
/// call through Foundation for every lock and unlock. The traversal makes one per request
/// (``CurlRequester``'s cancellation state) and takes several per resource. Apple platforms
/// keep `NSLock` until the package's oldest systems have `Mutex` (macOS 15, iOS 18).
package final class LockedValue<Value: Sendable>: @unchecked Sendable {
    #if os(Linux)
        private let mutex: Mutex<Value>

        package init(_ value: Value) {
            assert(MemoryLayout<Value>.size > 0, "LockedValue guards state; lock a value that has some")
            mutex = Mutex(value)
        }

        /// Runs `body` with exclusive access.
        package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
            try mutex.withLock { value in try body(&value) }
        }
    #else
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

        /// Runs `body` with exclusive access.
        package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
            lock.lock()
            defer { lock.unlock() }
            return try body(&value)
        }
    #endif

    package func get() -> Value {
        withLock { $0 }
    }

    package func set(_ newValue: Value) {
        withLock { $0 = newValue }
    }

    /// Stores `newValue` and returns the previous value, atomically.
    package func exchange(_ newValue: Value) -> Value {
        withLock { value in
            let old = value
            value = newValue
            return old
        }
    }
}
