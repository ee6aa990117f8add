import Foundation

// Member names and link relations are compared code unit by code unit (RFC 8259 §8.3), not with
// String's `==`, which is canonical equivalence: a server may write "misérables" precomposed
// and decomposed as two members, and treating them as one would silently drop one of them.

extension String {
    /// Whether the two strings hold the same UTF-8 bytes.
    ///
    /// As fast as `==` for the short names of HAL documents (this is every member lookup, and
    /// the parser's duplicate check): two strings with the same representation (one buffer, or
    /// the same bytes held inline, as short keys are) are equal at once; strings of different
    /// lengths, or that `==` tells apart, differ; only the rare canonically equal pair is
    /// compared byte by byte.
    @inline(__always)
    func hasSameCodeUnits(as other: String) -> Bool {
        if MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size {
            // Reading the two words of each value copies bits and touches no storage. Equal
            // words mean one buffer or the same inline bytes; unequal ones prove nothing (a
            // short string may also live in a buffer), so the checks below decide.
            let lhsWords = unsafeBitCast(self, to: (UInt64, UInt64).self)
            let rhsWords = unsafeBitCast(other, to: (UInt64, UInt64).self)
            if lhsWords == rhsWords { return true }
        }
        let lhs = utf8
        let rhs = other.utf8
        // Same bytes imply canonical equivalence, so `==` (fast for two short ASCII strings,
        // where the byte comparison below copies both first) may only rule out.
        guard lhs.count == rhs.count, self == other else { return false }
        let compared = lhs.withContiguousStorageIfAvailable { left in
            rhs.withContiguousStorageIfAvailable { right in
                left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
        if let compared = compared ?? nil { return compared }
        return lhs.elementsEqual(rhs)
    }

    /// Orders strings by their UTF-8 bytes, which for strings in Normalization Form C is the
    /// order of `<`, and which tells apart the strings that ``hasSameCodeUnits(as:)`` does.
    func precedesInCodeUnits(_ other: String) -> Bool {
        utf8.lexicographicallyPrecedes(other.utf8)
    }
}

/// A string as a dictionary key that is equal to another only with the same UTF-8 bytes.
struct CodeUnitKey: Hashable, Sendable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (lhs: CodeUnitKey, rhs: CodeUnitKey) -> Bool { lhs.string.hasSameCodeUnits(as: rhs.string) }

    func hash(into hasher: inout Hasher) {
        let hashed: Void? = string.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        // The same bytes fed the same way, so equal keys hash alike whatever their storage.
        if hashed == nil { Array(string.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
    }
}
