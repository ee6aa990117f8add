/// Byte classes and percent-encoding for URI Template processing
/// (RFC 3986 section 2, RFC 6570 sections 1.5 and 3.2.1).
///
/// Everything works on UTF-8 bytes: every character that URI syntax treats
/// specially is ASCII, and RFC 6570 defines the encoding of everything else
/// as the percent-encoding of its UTF-8 bytes, so there is no need to decode
/// Unicode scalars on the hot path.
package enum PercentEncoding {
    static let percent = UInt8(ascii: "%")

    /// RFC 3986 `unreserved`: ALPHA / DIGIT / "-" / "." / "_" / "~".
    @inline(__always)
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// RFC 3986 `reserved`: gen-delims and sub-delims.
    @inline(__always)
    static func isReserved(_ byte: UInt8) -> Bool {
        switch byte {
        // gen-delims
        case UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"),
            UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "@"):
            return true
        // sub-delims; "'" through "," is the contiguous run ' ( ) * + ,
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"),
            UInt8(ascii: "'")...UInt8(ascii: ","),
            UInt8(ascii: ";"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    /// The allow sets of RFC 6570 Appendix A as 128-bit ASCII bitmaps (bit
    /// `n` of `low` is byte `n`, bit `n` of `high` is byte `64 + n`).
    ///
    /// The value encoding loop tests every byte of every value; one shift
    /// and mask is cheaper than the chain of range comparisons the switch
    /// statements above compile to. The expansion tests check both bitmaps
    /// for every ASCII character against independently written sets.
    struct AllowSet: Sendable {
        let low: UInt64
        let high: UInt64

        /// U: `unreserved` only.
        static let unreserved = AllowSet(low: 0x03FF_6000_0000_0000, high: 0x47FF_FFFE_87FF_FFFE)

        /// U+R: `unreserved` and `reserved`.
        static let unreservedOrReserved = AllowSet(low: 0xAFFF_FFDA_0000_0000, high: 0x47FF_FFFE_AFFF_FFFF)

        @inline(__always)
        func contains(_ byte: UInt8) -> Bool {
            let bits = byte < 64 ? low : high
            return byte < 128 && (bits >> UInt64(byte & 63)) & 1 != 0
        }
    }

    @inline(__always)
    static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "A")...UInt8(ascii: "F"),
            UInt8(ascii: "a")...UInt8(ascii: "f"):
            return true
        default:
            return false
        }
    }

    /// Whether `bytes[index]` starts a complete `%XX` triplet.
    @inline(__always)
    static func isTriplet(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        index + 2 < bytes.count
            && bytes[index] == percent
            && isHexDigit(bytes[index + 1])
            && isHexDigit(bytes[index + 2])
    }

    /// Appends `%XX` with upper-case hex digits, which RFC 3986 section 2.1
    /// names as the form producers should use.
    package static func appendEscaped(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(percent)
        output.append(hexDigit(byte >> 4))
        output.append(hexDigit(byte & 0x0F))
    }

    @inline(__always)
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") - 10 + nibble
    }

    /// The value of a hexadecimal digit, either case; `nil` for any other byte.
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Appends a variable value, keeping the bytes in the operator's allow
    /// set and percent-encoding every other byte (RFC 6570 section 3.2.1).
    ///
    /// With `allowReserved` (operators `+` and `#`), reserved characters and
    /// existing `%XX` triplets pass through so a value that is already
    /// encoded is not encoded twice, while a lone `%` still becomes `%25`.
    ///
    /// - Parameters:
    ///   - value: The value's UTF-8 bytes.
    ///   - allowReserved: Whether the allow set is U+R rather than U.
    ///   - output: The buffer to append to.
    static func appendValue(
        _ value: some Collection<UInt8>,
        allowReserved: Bool,
        to output: inout URITemplateOutput
    ) {
        // Native Swift strings are contiguous, so the copy below only runs
        // for bridged or otherwise unusual storage.
        let handled: Void? = value.withContiguousStorageIfAvailable { buffer in
            appendValue(buffer, allowReserved: allowReserved, to: &output)
        }
        if handled == nil {
            Array(value).withUnsafeBufferPointer { buffer in
                appendValue(buffer, allowReserved: allowReserved, to: &output)
            }
        }
    }

    private static func appendValue(
        _ bytes: UnsafeBufferPointer<UInt8>,
        allowReserved: Bool,
        to output: inout URITemplateOutput
    ) {
        let count = bytes.count
        let allowed = allowReserved ? AllowSet.unreservedOrReserved : AllowSet.unreserved
        // Worst case: every byte becomes a triplet. Indices stay below
        // 3 * count, which was allocated, so wrapping arithmetic cannot wrap;
        // it only spares the loop an overflow check per byte.
        output.write(upTo: 3 * count) { destination in
            var written = 0
            var index = 0
            while index < count {
                let byte = bytes[index]
                if allowed.contains(byte) {
                    destination[written] = byte
                    written &+= 1
                } else if allowReserved && isTriplet(bytes, at: index) {
                    destination[written] = byte
                    destination[written &+ 1] = bytes[index &+ 1]
                    destination[written &+ 2] = bytes[index &+ 2]
                    written &+= 3
                    index &+= 3
                    continue
                } else {
                    destination[written] = percent
                    destination[written &+ 1] = hexDigit(byte >> 4)
                    destination[written &+ 2] = hexDigit(byte & 0x0F)
                    written &+= 3
                }
                index &+= 1
            }
            return written
        }
    }
}
