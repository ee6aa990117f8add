import HalleyHAL

/// Why values do not satisfy a HAL-FORMS template: every failing property with the rule it
/// breaks. Submitting checks everything before sending, so nothing was sent.
///
/// ```swift
/// do {
///     let updated = try await manager.submit(form, of: order, values: ["quantity": 12])
///     print(updated.status)
/// } catch let error as HalleyError where error.code == .formValidation {
///     for failure in error.formValidationError?.failures ?? [] {
///         print(failure.property, failure.rule, failure.message)   // quantity max 12 is more than the maximum 10
///     }
/// }
/// ```
///
/// Rules are named after the HAL-FORMS member that sets them:
///
/// | Rule | Fails when |
/// | --- | --- |
/// | ``Rule/required`` | a required property has no value (absent, `null`, `""` or `[]`) |
/// | ``Rule/readOnly`` | a read-only property is given a value other than its `value` |
/// | ``Rule/regex`` | a value does not match the whole pattern |
/// | ``Rule/minLength``, ``Rule/maxLength`` | a value has fewer or more UTF-16 code units |
/// | ``Rule/min``, ``Rule/max`` | a number is smaller or larger |
/// | ``Rule/step`` | a number is not `min` (or 0) plus a whole multiple of `step` |
/// | ``Rule/type`` | a value is not in the format of its `type` (number, email, url, date, ...), is not a number where `min`, `max` or `step` apply, or is an object or list where text is needed |
/// | ``Rule/options`` | a value is not among the options (inline or fetched) |
/// | ``Rule/minItems``, ``Rule/maxItems`` | fewer or more values are chosen |
/// | ``Rule/undeclared`` | a value names no property of the template (a typo would otherwise be dropped) |
/// | ``Rule/contentType`` | a value cannot be written in the template's content type (an object in a form-encoded body) |
///
/// As in HTML, an empty value is checked only by `required`, `minItems` and `readOnly`, and a
/// read-only property only by `readOnly`.
public struct HALFormValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A constraint of a template property. Open for new rules, so switch with a `default`.
    public struct Rule: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The rule's stable name: the HAL-FORMS member that sets it.
        public let rawValue: String
        /// Creates a rule from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `required`: a value must be given.
        public static let required = Rule(rawValue: "required")
        /// `readOnly`: the value may not change.
        public static let readOnly = Rule(rawValue: "readOnly")
        /// `regex`: the whole value must match the pattern.
        public static let regex = Rule(rawValue: "regex")
        /// `minLength`: at least that many UTF-16 code units.
        public static let minLength = Rule(rawValue: "minLength")
        /// `maxLength`: at most that many UTF-16 code units.
        public static let maxLength = Rule(rawValue: "maxLength")
        /// `min`: the smallest number allowed.
        public static let min = Rule(rawValue: "min")
        /// `max`: the largest number allowed.
        public static let max = Rule(rawValue: "max")
        /// `step`: numbers on the step's grid only.
        public static let step = Rule(rawValue: "step")
        /// `type`: the value's format (or kind) does not fit.
        public static let type = Rule(rawValue: "type")
        /// `options`: the value must be one of the options.
        public static let options = Rule(rawValue: "options")
        /// `minItems`: at least that many values.
        public static let minItems = Rule(rawValue: "minItems")
        /// `maxItems`: at most that many values.
        public static let maxItems = Rule(rawValue: "maxItems")
        /// The value names no property of the template.
        public static let undeclared = Rule(rawValue: "undeclared")
        /// `contentType`: the value cannot be written in the template's content type.
        public static let contentType = Rule(rawValue: "contentType")
        /// The rule's name.
        public var description: String { rawValue }
    }

    /// One property breaking one rule.
    public struct Failure: Sendable, Hashable, CustomStringConvertible {
        /// The property's name (or the undeclared value's).
        public let property: String
        /// The rule it breaks.
        public let rule: Rule
        /// A sentence for people: what is wrong with the value.
        public let message: String
        /// The offending value (one element of a list), when there is one.
        public let value: JSONValue?

        /// Creates a failure.
        public init(property: String, rule: Rule, message: String, value: JSONValue? = nil) {
            self.property = property
            self.rule = rule
            self.message = message
            self.value = value
        }

        /// `property: message (rule)`.
        public var description: String { "\(property): \(message) (\(rule))" }
    }

    /// The template's key.
    public let form: String
    /// Every failure, in the template's property order (undeclared values last).
    public let failures: [Failure]

    /// Creates an error.
    public init(form: String, failures: [Failure]) {
        self.form = form
        self.failures = failures
    }

    /// The failing properties, in order, each once.
    public var properties: [String] {
        var seen: Set<String> = []
        return failures.map(\.property).filter { seen.insert($0).inserted }
    }

    /// The failures of one property.
    public func failures(for property: String) -> [Failure] {
        failures.filter { $0.property == property }
    }

    /// `2 values do not satisfy template "default": quantity: … (max); title: … (required)`.
    public var description: String {
        let count = properties.count
        return "\(count) \(count == 1 ? "value does" : "values do") not satisfy template \"\(form)\": "
            + failures.map(\.description).joined(separator: "; ")
    }
}
