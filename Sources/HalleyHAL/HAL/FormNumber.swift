import Foundation

/// A number as HTML forms read one: a JSON number, or text in HTML's floating-point syntax
/// (`-1.5e3`, not `+1`, `.5e`, `0x10` or `Infinity`), compared exactly in decimal.
package struct FormNumber: CustomStringConvertible {
    package let value: Decimal
    package let text: String

    package init(_ double: Double) {
        text = Self.text(of: double)
        value = Decimal(string: text) ?? Decimal(double)
    }

    package init?(_ value: JSONValue) {
        switch value {
        case .int(let int):
            text = String(int)
            self.value = Decimal(int)
        case .double(let double):
            text = Self.text(of: double)
            self.value = Decimal(string: text) ?? Decimal(double)
        case .string(let string):
            guard Self.isValid(string), let decimal = Decimal(string: string, locale: Locale(identifier: "en_US_POSIX"))
            else { return nil }
            text = string
            self.value = decimal
        default:
            return nil
        }
    }

    package var description: String { text }

    /// Whether `self` is `base` plus a whole multiple of `step`.
    package func isOnGrid(step: FormNumber, from base: FormNumber) -> Bool {
        guard step.value > 0 else { return true }
        var quotient = (value - base.value) / step.value
        var rounded = Decimal()
        NSDecimalRound(&rounded, &quotient, 0, .plain)
        let difference = quotient - rounded
        let tolerance = Decimal(sign: .plus, exponent: -9, significand: 1)
        return difference.magnitude <= tolerance
    }

    /// `12` rather than `12.0` for whole doubles, so messages read like the document.
    private static func text(of double: Double) -> String {
        if double == double.rounded(), double.magnitude < 1e15 { return String(Int(double)) }
        return double.description
    }

    /// HTML's "valid floating-point number": `-`? digits (`.` digits)?, or `.` digits, then an
    /// optional exponent.
    package static func isValid(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        func digits() -> Int {
            var count = 0
            while let first = scalars.first, ("0"..."9").contains(first) {
                scalars.removeFirst()
                count += 1
            }
            return count
        }
        if scalars.first == "-" { scalars.removeFirst() }
        let whole = digits()
        if scalars.first == "." {
            scalars.removeFirst()
            guard digits() > 0 else { return false }
        } else if whole == 0 {
            return false
        }
        if scalars.first == "e" || scalars.first == "E" {
            scalars.removeFirst()
            if scalars.first == "-" || scalars.first == "+" { scalars.removeFirst() }
            guard digits() > 0 else { return false }
        }
        return scalars.isEmpty
    }
}
