import Foundation
import HalleyHAL
import HalleyTestFixtures
import Testing

/// One case of the uritemplate-test suite, bound to its group's variables.
struct URITemplateConformanceCase: Sendable, CustomTestStringConvertible {
    enum Expectation: Sendable {
        /// Expansion must produce one of these strings.
        case oneOf([String])
        /// Parsing or expansion must throw.
        case failure
    }

    let file: String
    let group: String
    let index: Int
    let template: String
    let variables: [String: TemplateValue]
    let expectation: Expectation

    var testDescription: String {
        "\(file) / \(group) #\(index): \(template)"
    }

    /// Runs the case; nil when it behaves as the suite expects, otherwise
    /// a description of what went wrong.
    func mismatch() -> String? {
        let parsed: URITemplate
        do {
            parsed = try URITemplate(template)
        } catch {
            if case .failure = expectation { return nil }
            return "parsing threw \(error)"
        }
        let result: String
        do {
            result = try parsed.expand(variables)
        } catch {
            if case .failure = expectation { return nil }
            return "expansion threw \(error)"
        }
        switch expectation {
        case .failure:
            return "expected an error, got \(result.debugDescription)"
        case .oneOf(let answers):
            if answers.contains(result) { return nil }
            return "got \(result.debugDescription), expected "
                + (answers.count == 1 ? answers[0].debugDescription : "one of \(answers)")
        }
    }
}

/// Loads the copied uritemplate-test files from Fixtures/uritemplate-test.
enum URITemplateConformanceFixtures {
    /// The suite files and the number of cases each one holds.
    static let files = ["spec-examples.json", "spec-examples-by-section.json", "negative-tests.json"]
    static let expectedCounts = [64, 117, 36]

    struct LoadError: Error, CustomStringConvertible {
        let description: String
    }

    static func allCases() throws -> [URITemplateConformanceCase] {
        try files.flatMap { try cases(in: $0) }
    }

    /// Read with Halley's own parser, which keeps object members in file order (map
    /// expansions follow it) and tells booleans from numbers.
    static func cases(in file: String) throws -> [URITemplateConformanceCase] {
        let data = try Fixture.data("uritemplate-test/\(file)")
        guard case .object(let groups) = try JSONValue(parsing: data) else {
            throw LoadError(description: "\(file): top level is not an object")
        }
        var result: [URITemplateConformanceCase] = []
        for (group, body) in groups.members {
            var variables: [String: TemplateValue] = [:]
            if case .object(let members)? = body["variables"] {
                for (name, value) in members.members {
                    variables[name] = try templateValue(value, context: "\(file) / \(group) / \(name)")
                }
            }
            guard case .array(let testCases)? = body["testcases"] else {
                throw LoadError(description: "\(file) / \(group): no testcases array")
            }
            for (index, testCase) in testCases.enumerated() {
                guard case .array(let pair) = testCase, pair.count == 2,
                    case .string(let template) = pair[0]
                else {
                    throw LoadError(description: "\(file) / \(group) #\(index): malformed case")
                }
                let expectation: URITemplateConformanceCase.Expectation
                switch pair[1] {
                case .string(let answer):
                    expectation = .oneOf([answer])
                case .array(let answers):
                    expectation = .oneOf(
                        try answers.map { answer in
                            guard case .string(let text) = answer else {
                                throw LoadError(description: "\(file) / \(group) #\(index): non-string answer")
                            }
                            return text
                        })
                case .bool(false):
                    expectation = .failure
                default:
                    throw LoadError(description: "\(file) / \(group) #\(index): unknown expectation")
                }
                result.append(
                    URITemplateConformanceCase(
                        file: file, group: group, index: index, template: template,
                        variables: variables, expectation: expectation
                    ))
            }
        }
        return result
    }

    /// Maps suite JSON onto template values: scalars become strings written
    /// as in the file, arrays lists, objects ordered associative arrays.
    static func templateValue(_ json: JSONValue, context: String) throws -> TemplateValue {
        switch json {
        case .null:
            return .undefined
        case .array(let elements):
            return .list(try elements.map { try scalarText($0, context: context) })
        case .object(let members):
            return .associativeArray(
                try members.members.map {
                    TemplateValue.KeyValue(key: $0.key, value: try scalarText($0.value, context: context))
                })
        default:
            return .string(try scalarText(json, context: context))
        }
    }

    private static func scalarText(_ json: JSONValue, context: String) throws -> String {
        switch json {
        case .string(let text):
            return text
        case .int, .double:
            // As JSON writes the number: `6` stays `6`.
            return String(decoding: json.serialized(), as: UTF8.self)
        case .bool(let flag):
            return flag ? "true" : "false"
        default:
            throw LoadError(description: "\(context): nested composite values are not supported")
        }
    }
}
