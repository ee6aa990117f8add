import Foundation
import Testing

@testable import HalleyHAL

/// Decodes one input both ways, through `JSONDecoder` and through the tree decoder, and says
/// how the outcomes differ.
///
/// Outcomes are equal when both decoders return equal values, or both throw `DecodingError`s
/// of the same case with the same type, the same coding path (string and int value of every
/// key) and the same description, or both throw the same other error.
enum DecodingComparison {
    /// One way of configuring the decoder: built fresh for each decode, so neither side sees
    /// the other's state.
    struct Setup: CustomStringConvertible, Sendable {
        let description: String
        let configure: @Sendable (JSONDecoder) -> Void

        init(_ description: String, _ configure: @escaping @Sendable (JSONDecoder) -> Void = { _ in }) {
            self.description = description
            self.configure = configure
        }

        func makeDecoder() -> JSONDecoder {
            let decoder = JSONDecoder()
            configure(decoder)
            return decoder
        }

        static let plain = Setup("default settings")
    }

    /// What comparing one input found.
    struct Finding {
        /// How the outcomes differ, or `nil` when they agree.
        var difference: String?
        /// Whether `JSONDecoder` threw (so a corpus of failures can check it fails).
        var referenceThrew: Bool
    }

    /// Compares the two decoders on `text`.
    ///
    /// The reference is `JSONDecoder` on `text` itself. `text` must be JSON whose parsed tree
    /// writes back the same numbers and members (the corpus is written that way), and this
    /// checks it by also comparing against `JSONDecoder` on the tree's own text.
    static func compare<T: Decodable>(
        _ type: T.Type, _ text: String, _ setup: Setup = .plain, same: (T, T) -> Bool
    ) -> Finding {
        let tree: JSONValue
        do {
            tree = try JSONValue(parsing: text)
        } catch {
            return Finding(difference: "the corpus text does not parse: \(error)", referenceThrew: true)
        }
        let reference = outcome { try setup.makeDecoder().decode(T.self, from: Data(text.utf8)) }
        let serialized = outcome { try setup.makeDecoder().decode(T.self, from: tree.serialized()) }
        let ours = outcome { try JSONValueDecoder(setup.makeDecoder()).decode(T.self, from: tree) }
        var finding = Finding(difference: nil, referenceThrew: reference.threw)
        if let difference = compare(reference, ours, same: same) {
            finding.difference = "JSONDecoder on the text vs the tree decoder: \(difference)"
        } else if let difference = compare(serialized, ours, same: same) {
            finding.difference = "JSONDecoder on the serialized tree vs the tree decoder: \(difference)"
        }
        return finding
    }

    /// Compares `JSONDecoder` on the serialized `tree` with the tree decoder.
    static func compare<T: Decodable>(
        _ type: T.Type, tree: JSONValue, _ setup: Setup = .plain, same: (T, T) -> Bool
    ) -> Finding {
        let reference = outcome { try setup.makeDecoder().decode(T.self, from: tree.serialized()) }
        let ours = outcome { try JSONValueDecoder(setup.makeDecoder()).decode(T.self, from: tree) }
        return Finding(difference: compare(reference, ours, same: same), referenceThrew: reference.threw)
    }

    enum Outcome<T> {
        case value(T)
        case failure(String)

        var threw: Bool {
            if case .failure = self { return true }
            return false
        }
    }

    static func outcome<T>(_ decode: () throws -> T) -> Outcome<T> {
        do {
            return .value(try decode())
        } catch {
            return .failure(describe(error))
        }
    }

    static func compare<T>(_ expected: Outcome<T>, _ actual: Outcome<T>, same: (T, T) -> Bool) -> String? {
        switch (expected, actual) {
        case (.value(let left), .value(let right)):
            return same(left, right) ? nil : "values differ: \(render(left)) vs \(render(right))"
        case (.failure(let left), .failure(let right)):
            return left == right ? nil : "errors differ:\n  \(left)\n  \(right)"
        case (.value(let left), .failure(let right)):
            return "expected \(render(left)), got \(right)"
        case (.failure(let left), .value(let right)):
            return "expected \(left), got \(render(right))"
        }
    }

    /// A value for a message. Dates print as seconds: `Date.description` traps for dates
    /// millions of years away, which `secondsSince1970` readily makes.
    private static func render(_ value: Any) -> String {
        if let date = value as? Date { return "Date(\(date.timeIntervalSince1970))" }
        if let dates = value as? [Date] { return "\(dates.map { "Date(\($0.timeIntervalSince1970))" })" }
        return "\(value)"
    }

    /// Everything a caller can see of an error.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(type(of: error)): \(error)" }
        switch error {
        case .typeMismatch(let type, let context):
            return "typeMismatch(\(type)) at \(path(context)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "valueNotFound(\(type)) at \(path(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "keyNotFound(\(render(key))) at \(path(context)): \(context.debugDescription)"
        case .dataCorrupted(let context):
            return "dataCorrupted at \(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        "[" + context.codingPath.map(render).joined(separator: ", ") + "]"
            + (context.underlyingError.map { " (underlying \(describe($0)))" } ?? "")
    }

    static func render(_ key: any CodingKey) -> String {
        "\"\(key.stringValue)\"" + (key.intValue.map { "#\($0)" } ?? "")
    }
}

extension DecodingComparison {
    /// `compare` for `Equatable` models.
    static func compare<T: Decodable & Equatable>(_ type: T.Type, _ text: String, _ setup: Setup = .plain)
        -> Finding
    {
        compare(type, text, setup, same: ==)
    }

    static func compare<T: Decodable & Equatable>(_ type: T.Type, tree: JSONValue, _ setup: Setup = .plain)
        -> Finding
    {
        compare(type, tree: tree, setup, same: ==)
    }
}

/// Collects the findings of many inputs, so one test reports every disagreement at once.
struct DecodingTally {
    private(set) var checked = 0
    private(set) var failures = 0
    private(set) var mismatches: [String] = []

    mutating func record(_ finding: DecodingComparison.Finding, _ label: @autoclosure () -> String) {
        checked += 1
        if finding.referenceThrew { failures += 1 }
        if let difference = finding.difference { mismatches.append("\(label()): \(difference)") }
    }

    /// Records a finding that must also say whether `JSONDecoder` threw as the corpus expects.
    mutating func record(
        _ finding: DecodingComparison.Finding, expectingFailure: Bool, _ label: @autoclosure () -> String
    ) {
        record(finding, label())
        if finding.referenceThrew != expectingFailure {
            mismatches.append(
                "\(label()): the corpus expects JSONDecoder to \(expectingFailure ? "throw" : "succeed") and it did not"
            )
        }
    }

    /// Records every mismatch as an issue; a tally that compared nothing is one too.
    func report(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(checked > 0, "no decoding was compared", sourceLocation: sourceLocation)
        for mismatch in mismatches.prefix(40) {
            Issue.record(Comment(rawValue: mismatch), sourceLocation: sourceLocation)
        }
        if mismatches.count > 40 {
            Issue.record("… and \(mismatches.count - 40) more", sourceLocation: sourceLocation)
        }
    }
}
