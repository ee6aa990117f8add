import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A value guarded by a lock, for the few places where synchronous code (a cancellation
/// handler, a completion callback, an observer) must share state with async code. The one
/// lock type of the package: the library, the `halley` tool and `halley-bench` all use it.
///
/// Guard real state, never an empty value (`LockedValue(())`): a zero-sized stored property
/// has the object's own address, so ThreadSanitizer sees every retain of the object as a
/// race with the locked access (a false report that failed CI once).
///
/// With glibc the lock is a `pthread_mutex_t` of the value's own: two allocations per value
/// and a direct call per lock and unlock, where `NSLock` costs three allocations (the box, the
/// lock object, its mutex) and a call through Foundation for each. The traversal makes one
/// per request (``CurlRequester``'s cancellation state) and takes several per resource. Not
/// the standard library's `Mutex`: ThreadSanitizer cannot see its futex, and reports every
/// access it guards as a race.
///
/// Unchecked sendability is sound here: the value is private and every read and write
/// happens inside the lock (`withLock`, which `get`, `set` and `exchange` go through), so no
/// two threads touch it at once; the mutex pointer is set once in `init` and freed only in
/// `deinit`, when no other reference exists; `Value` is itself `Sendable`, so handing it out
/// of the lock is safe.
package final class LockedValue<Value: Sendable>: @unchecked Sendable {
    #if canImport(Glibc)
        private let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
            let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
            return mutex
        }()

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }
    #else
        private let lock = NSLock()
    #endif
    /// Unchecked: every access is inside the lock, which is not recursive (a nested
    /// `withLock` deadlocks before it could overlap an access), so the runtime's exclusivity
    /// check can never find a conflict.
    ///
    /// perf: no exclusivity check per access; BENCHMARKS.md, "Why the hot paths look as they do".
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        assert(MemoryLayout<Value>.size > 0, "LockedValue guards state; lock a value that has some")
        self.value = value
    }

    /// Runs `body` with exclusive access.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if canImport(Glibc)
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
        #else
            lock.lock()
            defer { lock.unlock() }
        #endif
        return try body(&value)
    }

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
