import Foundation
import HalleyHAL

/// Checks values against a template the way HTML constraint validation checks a form, and
/// lists every failure (see ``HALFormValidationError`` for the rules).
struct FormValidator {
    typealias Failure = HALFormValidationError.Failure

    let form: HALForm
    /// The options of each property that has any: inline ones, or the fetched list of a
    /// linked one. A property with options but no list here is not checked for membership.
    let optionLists: [String: [HALFormOption]]
    /// How the values will travel; objects cannot travel in a form-encoded body.
    let encoding: FormEncoding

    /// Every failure of `provided` (the caller's values) with `defaults` (the properties' own
    /// values, resolved) filling in what the caller left out.
    func failures(provided: [String: JSONValue], defaults: [String: JSONValue]) -> [Failure] {
        var failures: [Failure] = []
        for property in form.properties {
            let given = provided[property.name]?.unlessNull
            let fallback = defaults[property.name]
            if property.readOnly {
                if let given, !Self.same(given, fallback) {
                    let message =
                        fallback.map {
                            "is read-only: it must stay \($0.quotedInMessage), not \(given.quotedInMessage)"
                        }
                        ?? "is read-only and has no value to change"
                    failures.append(Failure(property: property.name, rule: .readOnly, message: message, value: given))
                }
                continue  // As in HTML, read-only inputs are barred from the other checks.
            }
            failures += check(property, value: given ?? fallback)
        }
        let names = Set(form.properties.map(\.name))
        for (name, value) in provided.sorted(by: { $0.key < $1.key }) where !names.contains(name) && !value.isNull {
            let known = form.properties.map(\.name)
            failures.append(
                Failure(
                    property: name, rule: .undeclared,
                    message: "is not a property of template \"\(form.key)\" (its properties: "
                        + (known.isEmpty ? "none" : known.joined(separator: ", ")) + ")",
                    value: value))
        }
        return failures
    }

    /// The failures of one property's effective value.
    private func check(_ property: HALFormProperty, value: JSONValue?) -> [Failure] {
        let name = property.name
        let items = Self.items(of: value).filter { !Self.isEmpty($0) }
        var failures: [Failure] = []
        if items.isEmpty, property.required {
            return [Failure(property: name, rule: .required, message: "a value is required")]
        }
        for item in items {
            failures += check(property, item: item)
        }
        if let options = property.options {
            if let minItems = options.minItems, items.count < minItems, !(items.isEmpty && property.required) {
                failures.append(
                    Failure(
                        property: name, rule: .minItems,
                        message: "\(Self.count(items.count)) chosen; at least \(minItems) needed", value: value))
            }
            if let maxItems = options.maxItems, items.count > maxItems {
                failures.append(
                    Failure(
                        property: name, rule: .maxItems,
                        message: "\(Self.count(items.count)) chosen; at most \(maxItems) allowed", value: value))
            }
        }
        return failures
    }

    /// The failures of one non-empty value (one element of a list).
    private func check(_ property: HALFormProperty, item: JSONValue) -> [Failure] {
        let name = property.name
        func failure(_ rule: HALFormValidationError.Rule, _ message: String) -> Failure {
            Failure(property: name, rule: rule, message: message, value: item)
        }
        guard let text = HALFormOption.text(of: item) else {
            // An object (or a list inside a list): fine in a JSON body when nothing needs its text.
            if case .json = encoding {
                let needsText =
                    property.regex != nil || property.minLength != nil || property.maxLength != nil
                    || property.min != nil || property.max != nil || property.step != nil
                    || optionLists[name] != nil || FormatCheck.checks(property.inputType)
                return needsText
                    ? [failure(.type, "is \(Self.article(item)), but this property's constraints check text")] : []
            }
            let medium: String
            if case .query = encoding {
                medium = "in the URL's query (\(form.method))"
            } else {
                medium = "as \(form.contentType)"
            }
            return [failure(.contentType, "\(Self.article(item)) cannot be written \(medium)")]
        }
        var failures: [Failure] = []
        let number = FormNumber(item)
        let type = property.inputType
        var typeFailed = false
        if type == .number || type == .range {
            if number == nil {
                failures.append(failure(.type, "\(item.quotedInMessage) is not a number"))
                typeFailed = true
            }
        } else if let format = FormatCheck(type), !format.accepts(text) {
            failures.append(failure(.type, "\(item.quotedInMessage) is not a valid \(format.name)"))
            typeFailed = true
        }
        if let pattern = property.regex, let regex = FormPattern.compile(pattern), !FormPattern.matches(regex, text) {
            failures.append(failure(.regex, "\(item.quotedInMessage) does not match the pattern \(pattern)"))
        }
        let length = text.utf16.count
        if let minLength = property.minLength, length < minLength {
            failures.append(
                failure(
                    .minLength,
                    "\(item.quotedInMessage) is \(Self.characters(length)) long; the minimum is \(minLength)"))
        }
        if let maxLength = property.maxLength, length > maxLength {
            failures.append(
                failure(
                    .maxLength,
                    "\(item.quotedInMessage) is \(Self.characters(length)) long; the maximum is \(maxLength)"))
        }
        if property.min != nil || property.max != nil || property.step != nil {
            if let number {
                if let min = property.min, number.value < FormNumber(min).value {
                    failures.append(failure(.min, "\(number) is less than the minimum \(FormNumber(min))"))
                }
                if let max = property.max, number.value > FormNumber(max).value {
                    failures.append(failure(.max, "\(number) is more than the maximum \(FormNumber(max))"))
                }
                if let step = property.step {
                    let base =
                        property.min.map(FormNumber.init) ?? property.value.flatMap(FormNumber.init) ?? FormNumber(0)
                    if !number.isOnGrid(step: FormNumber(step), from: base) {
                        failures.append(
                            failure(.step, "\(number) is not \(base) plus a whole multiple of \(FormNumber(step))"))
                    }
                }
            } else if !typeFailed {
                failures.append(failure(.type, "\(item.quotedInMessage) is not a number, which min, max and step need"))
            }
        }
        if let list = optionLists[name], !list.contains(where: { Self.same(item, $0.value) }) {
            let shown = list.prefix(10).map { HALFormOption.text(of: $0.value) ?? "" }.joined(separator: ", ")
            failures.append(
                failure(
                    .options,
                    "\(item.quotedInMessage) is not one of the options"
                        + (list.isEmpty ? " (there are none)" : ": " + shown + (list.count > 10 ? ", …" : ""))))
        }
        return failures
    }

    // MARK: Values

    /// A value as a list of items: a list's elements (nulls left out), a scalar alone, nothing
    /// for `nil` or `null`.
    static func items(of value: JSONValue?) -> [JSONValue] {
        switch value {
        case nil, .null?: return []
        case .array(let elements)?: return elements.filter { !$0.isNull }
        case let value?: return [value]
        }
    }

    /// An empty string: no value, as in HTML.
    static func isEmpty(_ item: JSONValue) -> Bool { item == .string("") }

    /// Whether two values stand for the same form value: equal JSON, the same text, or the
    /// same number (`"2"` and `2`, `1.0` and `1`).
    static func same(_ lhs: JSONValue, _ rhs: JSONValue?) -> Bool {
        guard let rhs else { return false }
        if lhs == rhs { return true }
        if let left = HALFormOption.text(of: lhs), let right = HALFormOption.text(of: rhs) {
            if left == right { return true }
            if let a = FormNumber(lhs), let b = FormNumber(rhs) { return a.value == b.value }
            return false
        }
        let left = items(of: lhs)
        let right = items(of: rhs)
        guard left.count == right.count, lhs.arrayValue != nil || rhs.arrayValue != nil else { return false }
        return zip(left, right).allSatisfy { same($0, $1) }
    }

    private static func article(_ value: JSONValue) -> String {
        value.arrayValue != nil ? "a list" : value.kindWithArticle
    }

    private static func count(_ count: Int) -> String { count == 1 ? "1 value" : "\(count) values" }

    private static func characters(_ count: Int) -> String { count == 1 ? "1 character" : "\(count) characters" }
}

/// A `regex` as HTML applies a `pattern`: the whole value must match.
enum FormPattern {
    /// The pattern anchored to the whole value (`\A(?:pattern)\z`, as HTML wraps it in
    /// `^(?:…)$`), matched on Unicode scalars with ASCII `\d`, `\w` and `\b`, as ECMAScript
    /// does; `nil` when Swift's `Regex` cannot compile it (the spec says an unparseable regex
    /// is ignored).
    static func compile(_ pattern: String) -> Regex<AnyRegexOutput>? {
        guard let regex = try? Regex("\\A(?:" + pattern + ")\\z") else { return nil }
        return
            regex
            .matchingSemantics(.unicodeScalar)
            .asciiOnlyDigits()
            .asciiOnlyWordCharacters()
            .wordBoundaryKind(.simple)
    }

    static func matches(_ regex: Regex<AnyRegexOutput>, _ text: String) -> Bool {
        (try? regex.wholeMatch(in: text)) != nil
    }
}

/// The formats HTML checks for some input types.
struct FormatCheck {
    /// For messages: "email address", "date (yyyy-mm-dd)".
    let name: String
    let accepts: (String) -> Bool

    /// The check for `type`; `nil` for types without a format (text, tel, number, ...).
    init?(_ type: HALFormInputType) {
        switch type {
        case .email: self.init(name: "email address", accepts: Self.isEmail)
        case .url: self.init(name: "absolute URL", accepts: Self.isAbsoluteURL)
        case .date: self.init(name: "date (yyyy-mm-dd)", accepts: { Self.date($0) != nil })
        case .month: self.init(name: "month (yyyy-mm)", accepts: { Self.month($0) != nil })
        case .week: self.init(name: "week (yyyy-Www)", accepts: Self.isWeek)
        case .time: self.init(name: "time (hh:mm[:ss[.sss]])", accepts: Self.isTime)
        case .datetimeLocal:
            self.init(name: "local date and time (yyyy-mm-ddThh:mm[:ss[.sss]])", accepts: Self.isDateTime)
        case .color: self.init(name: "colour (#rrggbb)", accepts: Self.isColor)
        default: return nil
        }
    }

    private init(name: String, accepts: @escaping (String) -> Bool) {
        self.name = name
        self.accepts = accepts
    }

    /// Whether values of `type` have their text checked (number and range included).
    static func checks(_ type: HALFormInputType) -> Bool {
        type == .number || type == .range || FormatCheck(type) != nil
    }

    // MARK: Formats (the HTML standard's microsyntaxes)

    private static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return false }
        let localAllowed = "!#$%&'*+/=?^_`{|}~.-".unicodeScalars
        guard parts[0].unicodeScalars.allSatisfy({ isAlphanumeric($0) || localAllowed.contains($0) }) else {
            return false
        }
        return parts[1].split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            let scalars = Array(label.unicodeScalars)
            guard let first = scalars.first, let last = scalars.last, scalars.count <= 63 else { return false }
            return isAlphanumeric(first) && isAlphanumeric(last)
                && scalars.allSatisfy { isAlphanumeric($0) || $0 == "-" }
        }
    }

    private static func isAbsoluteURL(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), let first = text.unicodeScalars.first, isLetter(first) else {
            return false
        }
        let scheme = text[..<colon]
        guard
            scheme.unicodeScalars.allSatisfy({ isAlphanumeric($0) || "+-.".unicodeScalars.contains($0) }),
            !text.contains(where: { $0 == " " || $0.isNewline })
        else { return false }
        return URL(string: text)?.scheme != nil
    }

    /// `yyyy-mm-dd`, a real day: (year, month, day).
    private static func date(_ text: Substring) -> (Int, Int, Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, let yearMonth = month(Substring(parts[0] + "-" + parts[1])),
            parts[2].count == 2, parts[2].allSatisfy(\.isASCIIDigit), let day = Int(parts[2]),
            (1...daysIn(yearMonth.1, of: yearMonth.0)).contains(day)
        else { return nil }
        return (yearMonth.0, yearMonth.1, day)
    }

    private static func date(_ text: String) -> (Int, Int, Int)? { date(Substring(text)) }

    /// `yyyy-mm`: a year of four or more digits above 0 and a month.
    private static func month(_ text: Substring) -> (Int, Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count >= 4, parts[0].allSatisfy(\.isASCIIDigit), let year = Int(parts[0]),
            year > 0, parts[1].count == 2, parts[1].allSatisfy(\.isASCIIDigit), let month = Int(parts[1]),
            (1...12).contains(month)
        else { return nil }
        return (year, month)
    }

    private static func month(_ text: String) -> (Int, Int)? { month(Substring(text)) }

    private static func isWeek(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count >= 4, parts[0].allSatisfy(\.isASCIIDigit), let year = Int(parts[0]),
            year > 0, parts[1].count == 3, parts[1].first == "W", parts[1].dropFirst().allSatisfy(\.isASCIIDigit),
            let week = Int(parts[1].dropFirst())
        else { return false }
        return (1...weeksIn(year)).contains(week)
    }

    private static func isTime(_ text: String) -> Bool { isTime(Substring(text)) }

    private static func isTime(_ text: Substring) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, twoDigits(parts[0], below: 24), twoDigits(parts[1], below: 60)
        else { return false }
        guard parts.count == 3 else { return true }
        let seconds = parts[2].split(separator: ".", omittingEmptySubsequences: false)
        guard twoDigits(seconds[0], below: 60) else { return false }
        guard seconds.count == 2 else { return seconds.count == 1 }
        return (1...3).contains(seconds[1].count) && seconds[1].allSatisfy(\.isASCIIDigit)
    }

    private static func isDateTime(_ text: String) -> Bool {
        guard let separator = text.firstIndex(where: { $0 == "T" || $0 == " " }) else { return false }
        return date(text[..<separator]) != nil && isTime(text[text.index(after: separator)...])
    }

    private static func isColor(_ text: String) -> Bool {
        text.count == 7 && text.first == "#" && text.dropFirst().allSatisfy(\.isHexDigit)
    }

    private static func twoDigits(_ text: Substring, below limit: Int) -> Bool {
        text.count == 2 && text.allSatisfy(\.isASCIIDigit) && (Int(text) ?? limit) < limit
    }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    /// 53 when 1 January is a Thursday, or a Wednesday in a leap year (ISO 8601).
    private static func weeksIn(_ year: Int) -> Int {
        let weekday = dayOfWeekOfJanuaryFirst(year)  // 0 = Monday
        return weekday == 3 || (weekday == 2 && isLeap(year)) ? 53 : 52
    }

    /// 0 = Monday ... 6 = Sunday, proleptic Gregorian.
    private static func dayOfWeekOfJanuaryFirst(_ year: Int) -> Int {
        let y = year - 1
        // 1 January of year 1 was a Monday.
        let days = y * 365 + y / 4 - y / 100 + y / 400
        return days % 7
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        isLetter(scalar) || ("0"..."9").contains(scalar)
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
