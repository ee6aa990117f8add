/// The growable byte buffer that expansion writes into.
///
/// Expansion is on the hot path of every templated link a client follows,
/// and `[UInt8].append` pays a capacity and uniqueness check per byte. This
/// buffer instead reserves the worst case for a whole value once (3 bytes
/// per input byte when everything needs `%XX`) and then writes without
/// checks. It is non-copyable so the storage has exactly one owner and is
/// freed exactly once.
struct URITemplateOutput: ~Copyable {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0

    init(capacity: Int) {
        let initial = Swift.max(capacity, 32)
        storage = .allocate(capacity: initial)
        self.capacity = initial
    }

    deinit {
        storage.deallocate()
    }

    /// Makes room for `extra` more bytes, after which up to that many
    /// ``appendUnchecked(_:)`` calls are safe.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity {
            grow(toAtLeast: count + extra)
        }
    }

    @inline(never)
    private mutating func grow(toAtLeast minimum: Int) {
        let newCapacity = Swift.max(minimum, capacity * 2)
        let newStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStorage.initialize(from: storage, count: count)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
    }

    /// Lets `body` write up to `maxCount` bytes straight into the storage and
    /// keeps as many as it reports.
    ///
    /// Encoding loops run through a local pointer this way, so the compiler
    /// does not have to reload this buffer's fields after every byte.
    ///
    /// - Parameters:
    ///   - maxCount: The most bytes `body` may write.
    ///   - body: Writes from the given position and returns how many bytes it wrote.
    @inline(__always)
    mutating func write(upTo maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(maxCount)
        count += body(storage + count)
    }

    /// Writes one byte; the caller must have reserved room for it.
    @inline(__always)
    mutating func appendUnchecked(_ byte: UInt8) {
        storage[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        appendUnchecked(byte)
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (storage + count).initialize(from: base, count: bytes.count)
        count += bytes.count
    }

    /// Appends `bytes[range]` without creating an intermediate slice.
    mutating func append(_ bytes: [UInt8], range: Range<Int>) {
        bytes.withUnsafeBufferPointer { buffer in
            append(UnsafeBufferPointer(rebasing: buffer[range]))
        }
    }

    /// The bytes written so far as a string; they are all ASCII.
    consuming func makeString() -> String {
        String(decoding: UnsafeBufferPointer(start: storage, count: count), as: UTF8.self)
    }
}
