import Foundation
import HalleyHAL
import Testing

/// The parser reads integers and short decimals without going through `Int(text)` and
/// `Double(text)`; what it reads must be exactly what they read, bit for bit, on both sides of
/// the limits of those shortcuts.
@Suite struct JSONNumberReadingTests {
    /// Decimals at and past the shortcut's limits (15 significant digits, 22 after the point),
    /// signs, zeros, and exponents, which always take the long way.
    static let decimals = [
        "0.99", "-0.99", "0.0", "-0.0", "1.5", "1000.001", "0.1", "0.2", "0.3", "123456789.012345",
        "999999999999999.0", "9999999999999999.0", "0.000000000000000000001", "0.0000000000000000000001",
        "0.00000000000000000000001", "1.7976931348623157", "4.9406564584124654", "3.141592653589793",
        "3.1415926535897932", "2.2250738585072014", "0.5", "1e2", "1.5E-3", "-2.5e+10",
        "123.456e0", "9007199254740993.0", "0.1000000000000000055511151231257827",
    ]

    @Test(arguments: decimals) func aDecimalReadsAsDoubleReadsIt(_ text: String) throws {
        let expected = try #require(Double(text))
        let parsed = try JSONValue(parsing: "[\(text)]")
        guard case .array(let values) = parsed, case .double(let value)? = values.first else {
            Issue.record("\(text) read as \(parsed)")
            return
        }
        #expect(value.bitPattern == expected.bitPattern, "\(text): \(value) vs \(expected)")
    }

    @Test(arguments: [
        "0", "-0", "7", "-7", "9223372036854775807", "-9223372036854775808", "1000000",
    ]) func anIntegerReadsAsIntReadsIt(_ text: String) throws {
        let expected = try #require(Int(text))
        #expect(try JSONValue(parsing: text) == .int(expected))
    }

    @Test(arguments: ["9223372036854775808", "-9223372036854775809", "100000000000000000000"])
    func anIntegerPastIntIsADouble(_ text: String) throws {
        let expected = try #require(Double(text))
        #expect(try JSONValue(parsing: text) == .double(expected))
    }
}
