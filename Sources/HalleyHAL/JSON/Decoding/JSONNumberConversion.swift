import Foundation

/// How `JSONDecoder` turns the text of a number into each numeric type, applied to the
/// `Int` and `Double` a `JSONValue` holds.
///
/// The tree is written for `JSONDecoder` as `String(int)` and `double.description` (the
/// shortest text that reads back as the same `Double`), so the reference for every rule here is
/// `JSONDecoder` reading that text. Where the result follows from the value alone it is computed
/// from the value; where `JSONDecoder` reads the digits (a `Decimal`, an integer past 2^53 given
/// as a `Double`, a `Float` that lies exactly halfway between two `Float`s) it is computed from
/// that same text.
enum JSONNumberConversion {
    /// 2^53: below it every integer is exactly a `Double`, and `JSONDecoder` converts a `Double`
    /// to an integer type directly; from it on, it reads the number's digits instead.
    private static let exactIntegerLimit = 9_007_199_254_740_992.0

    /// An integer number as `T`, or `nil` when it does not fit.
    static func integer<T: FixedWidthInteger>(_ type: T.Type, from int: Int) -> T? {
        T(exactly: int)
    }

    /// A floating-point number as `T`: `nil` when it has a fraction or does not fit.
    static func integer<T: FixedWidthInteger>(_ type: T.Type, from double: Double) -> T? {
        guard let exact = T(exactly: double) else { return nil }
        if double.magnitude < exactIntegerLimit { return exact }
        return integer(T.self, fromDigitsOf: double.description)
    }

    /// The integer that the decimal text `text` (`-`, digits, an optional fraction and exponent)
    /// denotes, truncated toward zero, computed in 64 bits as `JSONDecoder` does through
    /// `Decimal`: a value past `UInt64.max` does not fit any type, `Int128` included.
    private static func integer<T: FixedWidthInteger>(_ type: T.Type, fromDigitsOf text: String) -> T? {
        var digits: UInt64 = 0
        var scale = 0
        var isNegative = false
        var inFraction = false
        var exponent = 0
        var exponentSign = 1
        var inExponent = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "-") where inExponent: exponentSign = -1
            case UInt8(ascii: "-"): isNegative = true
            case UInt8(ascii: "+"): break
            case UInt8(ascii: "."): inFraction = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"): inExponent = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let digit = UInt64(byte - UInt8(ascii: "0"))
                if inExponent {
                    exponent = exponent * 10 + Int(digit)
                } else {
                    let (shifted, overflow) = digits.multipliedReportingOverflow(by: 10)
                    let (sum, carry) = shifted.addingReportingOverflow(digit)
                    guard !overflow, !carry else { return nil }
                    digits = sum
                    if inFraction { scale -= 1 }
                }
            default: return nil
            }
        }
        scale += exponentSign * exponent
        while scale < 0 {
            digits /= 10
            scale += 1
        }
        while scale > 0 {
            let (shifted, overflow) = digits.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            digits = shifted
            scale -= 1
        }
        if isNegative {
            guard T.isSigned, let magnitude = T(exactly: digits) else { return nil }
            return 0 - magnitude
        }
        return T(exactly: digits)
    }

    /// A `Float` read from the decimal text of `double`, as `JSONDecoder` reads it (rounded once,
    /// from the digits); `nil` when it overflows or rounds a non-zero number to zero.
    static func float(from double: Double) -> Float? {
        var float = Float(double)
        if isHalfway(double, roundedTo: float) {
            // Rounding the Double again may land on the other neighbour than rounding the
            // digits once; only this tie needs them.
            float = Float(double.description) ?? float
        }
        guard float.isFinite, float != 0 || double == 0 else { return nil }
        return float
    }

    /// A `Float` from an integer number, rounded once like the digits would be.
    static func float(from int: Int) -> Float { Float(int) }

    /// Whether `double` lies exactly halfway between `float` (its nearest `Float`) and the
    /// neighbour on its other side, where the digits of `double` decide the rounding.
    private static func isHalfway(_ double: Double, roundedTo float: Float) -> Bool {
        if float.isInfinite {
            // Halfway between the largest Float and the next power of two, which rounds up.
            let largest = Double(Float.greatestFiniteMagnitude)
            return double.magnitude == largest + Double(Float.greatestFiniteMagnitude.ulp) / 2
        }
        let rounded = Double(float)
        guard rounded != double else { return false }
        let neighbour = Double(rounded < double ? float.nextUp : float.nextDown)
        guard neighbour.isFinite else { return false }
        return (rounded + neighbour) / 2 == double
    }

    /// A `Decimal` read from the number's text, as `JSONDecoder` reads it; `nil` past the
    /// exponents a `Decimal` holds.
    static func decimal(from value: JSONValue) -> Decimal? {
        switch value {
        case .int(let int): return Decimal(string: String(int))
        case .double(let double): return Decimal(string: double.description)
        default: return nil
        }
    }

    /// `value` with every `Double` that reads as an `Int` turned into one, recursively: what
    /// ``JSONValue/init(from:)`` builds through a decoder, which tries `Int` before `Double`.
    /// Returns the value itself, uncopied, when nothing changes.
    static func integralDoublesAsIntegers(_ value: JSONValue) -> JSONValue {
        rewritten(value) ?? value
    }

    /// The rewritten value, or `nil` when `value` holds no integral `Double`.
    ///
    /// (No `nil` in conditional expressions here: one beside a `JSONValue` reads as `.null`.)
    private static func rewritten(_ value: JSONValue) -> JSONValue? {
        switch value {
        case .double(let double):
            return integer(Int.self, from: double).map(JSONValue.int)
        case .array(let elements):
            // Each element is rewritten once: asking first and rewriting after would redo every
            // nested level, twice per level.
            var copy = elements
            var changed = false
            for position in elements.indices {
                if let element = rewritten(elements[position]) {
                    copy[position] = element
                    changed = true
                }
            }
            guard changed else { return nil }
            return .array(copy)
        case .object(let object):
            var copy = object
            var changed = false
            for position in 0..<object.count {
                if let member = rewritten(object.value(atPosition: position)) {
                    copy.setValue(member, atPosition: position)
                    changed = true
                }
            }
            guard changed else { return nil }
            return .object(copy)
        case .null, .bool, .int, .string:
            return nil
        }
    }
}
