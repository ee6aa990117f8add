import Foundation

/// How ``JSONValue/serialized(options:)`` writes text.
public struct JSONWritingOptions: OptionSet, Sendable, Hashable {
    /// The options' bits.
    public let rawValue: Int
    /// Creates options from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Two-space indentation and one member per line.
    public static let prettyPrinted = JSONWritingOptions(rawValue: 1 << 0)
    /// Object keys in byte order instead of document order (stable output for diffs).
    public static let sortedKeys = JSONWritingOptions(rawValue: 1 << 1)
}

extension JSONValue {
    /// The value as UTF-8 JSON text.
    ///
    /// Objects keep their key order unless `.sortedKeys` is given. Non-finite doubles,
    /// which JSON cannot represent and the parser never produces, are written as `null`.
    public func serialized(options: JSONWritingOptions = []) -> Data {
        var writer = JSONWriter(options: options)
        writer.write(self, indent: 0)
        return Data(writer.output)
    }
}

private struct JSONWriter {
    let pretty: Bool
    let sorted: Bool
    var output: [UInt8] = []

    init(options: JSONWritingOptions) {
        pretty = options.contains(.prettyPrinted)
        sorted = options.contains(.sortedKeys)
        output.reserveCapacity(4096)
    }

    mutating func write(_ value: JSONValue, indent: Int) {
        switch value {
        case .null: append("null")
        case .bool(let bool): append(bool ? "true" : "false")
        case .int(let int): append(String(int))
        case .double(let double):
            if double.isFinite {
                // `description` is the shortest text that reads back as the same Double.
                append(double.description)
            } else {
                append("null")
            }
        case .string(let string): writeString(string)
        case .array(let array):
            guard !array.isEmpty else { return append("[]") }
            output.append(UInt8(ascii: "["))
            for (offset, element) in array.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                write(element, indent: indent + 1)
            }
            newline(indent)
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            guard !object.isEmpty else { return append("{}") }
            output.append(UInt8(ascii: "{"))
            var first = true
            func member(_ key: String, _ value: JSONValue) {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                newline(indent + 1)
                writeString(key)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(UInt8(ascii: " ")) }
                write(value, indent: indent + 1)
            }
            if sorted {
                for key in object.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                    if let value = object[key] { member(key, value) }
                }
            } else {
                for (key, value) in object.members { member(key, value) }
            }
            newline(indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    private mutating func newline(_ indent: Int) {
        guard pretty else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    private mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func writeString(_ string: String) {
        output.append(UInt8(ascii: "\""))
        // Native strings are contiguous UTF-8; bridged ones are copied once.
        if string.utf8.withContiguousStorageIfAvailable({ writeEscaped($0) }) == nil {
            Array(string.utf8).withUnsafeBufferPointer { writeEscaped($0) }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Copies runs of bytes that need no escaping in one append each.
    private mutating func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in bytes.indices {
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            default:
                append("\\u00")
                output.append(Self.hexDigits[Int(byte >> 4)])
                output.append(Self.hexDigits[Int(byte & 0x0F)])
            }
            runStart = index + 1
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }
}
