import Foundation

/// One input of a HAL-FORMS template: its name, how to present it, and the constraints a
/// value must meet.
///
/// ```swift
/// let property = try HALFormProperty(json: ["name": "quantity", "type": "number", "min": 1, "max": 10, "required": true])
/// property.required       // true
/// property.inputType      // .number
/// property.max            // Optional(10.0)
/// ```
///
/// Every member of the HAL-FORMS property object is read and type-checked (a member of the
/// wrong type is read as the draft says and recorded in ``problems``); members the spec does
/// not define (Spring's `multi`, vendor extensions) are kept in ``json``.
/// ``ResourceManager/submit(_:of:values:options:)`` checks values against the constraints
/// before sending (see ``HALFormValidationError`` for each rule).
public struct HALFormProperty: Sendable, Hashable {
    /// The parameter name: the key in a JSON body, the name in a form-encoded one.
    public let name: String
    /// A human-readable label; show ``name`` when `nil`.
    public let prompt: String?
    /// Whether a value must be given (an empty string or an empty list is no value).
    public let required: Bool
    /// Whether the value may not be changed: a value other than ``value`` is rejected.
    public let readOnly: Bool
    /// Whether ``value`` is an RFC 6570 URI template, expanded with the call's variables
    /// when it is used as the default.
    public let templated: Bool
    /// The default value, sent when the caller gives none. Usually a string; Spring HATEOAS
    /// may write numbers, and a selected list as an array.
    public let value: JSONValue?
    /// A pattern the whole value must match (HTML's `pattern` attribute rules).
    public let regex: String?
    /// The smallest number allowed.
    public let min: Double?
    /// The largest number allowed.
    public let max: Double?
    /// The fewest characters allowed (UTF-16 code units, as HTML counts).
    public let minLength: Int?
    /// The most characters allowed (UTF-16 code units, as HTML counts).
    public let maxLength: Int?
    /// The granularity of a number: valid values are `min` (or 0) plus a whole multiple of it.
    public let step: Double?
    /// An example of the expected format, for display.
    public let placeholder: String?
    /// The HTML input type as written; `nil` when absent (treat as ``HALFormInputType/text``,
    /// see ``inputType``).
    public let type: HALFormInputType?
    /// Columns of a `textarea`, for display.
    public let cols: Int?
    /// Rows of a `textarea`, for display.
    public let rows: Int?
    /// The values to choose from, inline or behind a link.
    public let options: HALFormOptions?
    /// The property object as written, including members HAL-FORMS does not define.
    public let json: JSONObject
    /// Members of the property (and of its ``options``) that could not be read as written,
    /// each with its JSON path and a message saying how it was read instead (as the value
    /// it spells, or as absent). Empty for a well-formed property.
    public let problems: [HALDocumentError]

    /// Reads a property object, checking every member HAL-FORMS defines.
    ///
    /// A member of the wrong type is read as the HAL-FORMS draft asks, not thrown: a string
    /// spelling the right type (`"required": "true"`, `"maxLength": "40"`) as that value,
    /// anything else (`"required": "yes"`, a negative length, a `step` that is not positive,
    /// `options` that are not an object) as absent, so the default applies. Each is recorded
    /// in ``problems``.
    ///
    /// - Throws: ``HALDocumentError`` with ``HALDocumentError/Code/missingPropertyName`` when
    ///   there is no `name` string, or an empty one: a value cannot be sent without it.
    public init(json: JSONObject, path: String = "$") throws(HALDocumentError) {
        var reader = FormMemberReader(object: json, path: path, what: "property")
        guard let name = try reader.requiredString("name"), !name.isEmpty else {
            throw HALDocumentError(
                code: .missingPropertyName, path: path, message: "template property has no name")
        }
        self.name = name
        prompt = reader.string("prompt")
        required = reader.bool("required", absent: false)
        readOnly = reader.bool("readOnly", absent: false)
        templated = reader.bool("templated", absent: false)
        value = json["value"]?.unlessNull
        // The spec: an empty regex is ignored.
        regex = reader.string("regex").flatMap { $0.isEmpty ? nil : $0 }
        min = reader.number("min")
        max = reader.number("max")
        minLength = reader.count("minLength")
        maxLength = reader.count("maxLength")
        let step = reader.number("step")
        if let step, !(step > 0) || !step.isFinite {
            reader.note("step", "is \(FormNumber(step)), not a positive number; ignored")
            self.step = nil
        } else {
            self.step = step
        }
        placeholder = reader.string("placeholder")
        type = reader.string("type").flatMap { $0.isEmpty ? nil : HALFormInputType(rawValue: $0) }
        cols = reader.count("cols")
        rows = reader.count("rows")
        switch json["options"] {
        case nil, .null?:
            options = nil
        case .object(let object)?:
            let options = try HALFormOptions(json: object, path: JSONPath.appending(.key("options"), to: path))
            reader.note(options.problems)
            self.options = options
        case let other?:
            reader.note("options", "is \(FormMemberReader.shown(other)), not an object; ignored")
            options = nil
        }
        problems = reader.problems
        self.json = json
    }

    /// The input type to treat the property as: ``type``, or ``HALFormInputType/text`` when
    /// the template names none.
    public var inputType: HALFormInputType { type ?? .text }

    /// The label to show: ``prompt``, else ``name`` (as the spec suggests).
    public var label: String { prompt ?? name }
}

/// An HTML input type, as HAL-FORMS names them in a property's `type`: an open,
/// string-backed type with the HTML types named.
///
/// ```swift
/// let type: HALFormInputType = "email"
/// type == .email   // true
/// ```
///
/// Submitting checks the formats of `number`, `range`, `email`, `url`, `date`, `time`,
/// `datetime-local`, `month`, `week` and `color` values as HTML does; other types are
/// hints for display.
public struct HALFormInputType: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The type as written, e.g. `datetime-local`.
    public let rawValue: String
    /// Creates a type from its name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a type from a literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The type's name.
    public var description: String { rawValue }

    /// A value sent but not shown.
    public static let hidden = HALFormInputType(rawValue: "hidden")
    /// One line of text; the default.
    public static let text = HALFormInputType(rawValue: "text")
    /// Several lines of text (see ``HALFormProperty/cols`` and ``HALFormProperty/rows``).
    public static let textarea = HALFormInputType(rawValue: "textarea")
    /// A search term.
    public static let search = HALFormInputType(rawValue: "search")
    /// A telephone number (not checked: formats vary by country).
    public static let tel = HALFormInputType(rawValue: "tel")
    /// An absolute URL.
    public static let url = HALFormInputType(rawValue: "url")
    /// An e-mail address (HTML's definition).
    public static let email = HALFormInputType(rawValue: "email")
    /// A secret.
    public static let password = HALFormInputType(rawValue: "password")
    /// A date, `yyyy-mm-dd`.
    public static let date = HALFormInputType(rawValue: "date")
    /// A time, `hh:mm`, `hh:mm:ss` or `hh:mm:ss.sss`.
    public static let time = HALFormInputType(rawValue: "time")
    /// A date and time without zone, `yyyy-mm-ddThh:mm[:ss[.sss]]`.
    public static let datetimeLocal = HALFormInputType(rawValue: "datetime-local")
    /// A month, `yyyy-mm`.
    public static let month = HALFormInputType(rawValue: "month")
    /// A week, `yyyy-Www`.
    public static let week = HALFormInputType(rawValue: "week")
    /// A number.
    public static let number = HALFormInputType(rawValue: "number")
    /// A number from a range (see ``HALFormProperty/min`` and ``HALFormProperty/max``).
    public static let range = HALFormInputType(rawValue: "range")
    /// A colour, `#rrggbb`.
    public static let color = HALFormInputType(rawValue: "color")
    /// A Boolean choice.
    public static let checkbox = HALFormInputType(rawValue: "checkbox")
    /// One choice among several.
    public static let radio = HALFormInputType(rawValue: "radio")
    /// A file (not sent: HAL-FORMS defines no multipart encoding).
    public static let file = HALFormInputType(rawValue: "file")
}

/// The values a property may take, listed inline or behind a link (the HAL-FORMS `options`
/// object).
///
/// ```swift
/// let property = try HALFormProperty(json: [
///     "name": "shipping",
///     "options": ["inline": ["FedEx", "DHL"], "maxItems": 1],
/// ])
/// property.options?.inline?.map(\.prompt)   // ["FedEx", "DHL"]
/// property.options?.maxItems                // Optional(1)
/// ```
///
/// When both `inline` and `link` are written, ``inline`` is used (the spec's rule). Fetch a
/// linked list with ``ResourceManager/options(for:of:variables:options:)``.
public struct HALFormOptions: Sendable, Hashable {
    /// The values listed in the document, each with its prompt; `nil` when there is no
    /// `inline` member.
    public let inline: [HALFormOption]?
    /// Where to fetch the values: a HAL link object (`href`, `templated`, `type`). A member of
    /// the wrong type is read as the draft says (a `templated` of `"false"` as `false`) and
    /// recorded in ``problems``; ``Link/json`` then holds the link as read.
    public let link: Link?
    /// The member of an object item holding its prompt: `prompt` unless the document says.
    public let promptField: String
    /// The member of an object item holding its value: `value` unless the document says.
    /// A name with dots that is not a member of the item is followed as a path
    /// (`_links.self.href` picks a HAL item's own URL).
    public let valueField: String
    /// The values selected by default; used when the caller gives none and the property has
    /// no `value`.
    public let selectedValues: [JSONValue]?
    /// The fewest values to choose; none when `nil`.
    public let minItems: Int?
    /// The most values to choose; unbounded when `nil`.
    public let maxItems: Int?
    /// The options object as written.
    public let json: JSONObject
    /// Members of the options object that could not be read as written, each with its JSON
    /// path and a message saying how it was read instead. Empty for well-formed options.
    public let problems: [HALDocumentError]

    /// Reads an options object.
    ///
    /// Nothing in it is thrown: the draft says options a client cannot parse are ignored. A
    /// member of the wrong type is read as the value it spells (`"maxItems": "1"`, a link's
    /// `"templated": "false"`) or as absent, an inline item without its value is left out, and
    /// a link without an `href` string is no link; each is recorded in ``problems``.
    ///
    /// - Throws: Nothing: every problem is recorded instead. The signature still says
    ///   `throws` so that code written when a malformed member threw keeps compiling.
    public init(json: JSONObject, path: String = "$") throws(HALDocumentError) {
        var reader = FormMemberReader(object: json, path: path, what: "options")
        let promptField = reader.string("promptField") ?? ""
        let valueField = reader.string("valueField") ?? ""
        self.promptField = promptField.isEmpty ? "prompt" : promptField
        self.valueField = valueField.isEmpty ? "value" : valueField
        switch json["inline"] {
        case nil, .null?:
            inline = nil
        case .array(let items)?:
            let inlinePath = JSONPath.appending(.key("inline"), to: path)
            var options: [HALFormOption] = []
            options.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                guard
                    let option = HALFormOption(
                        item: item, promptField: self.promptField, valueField: self.valueField)
                else {
                    reader.note([
                        HALDocumentError(
                            code: .invalidFormMember, path: JSONPath.appending(.index(index), to: inlinePath),
                            message: item.objectValue == nil
                                ? "options item is \(FormMemberReader.shown(item)), not a value or an object; left out"
                                : "options item has no \"\(self.valueField)\" value; left out")
                    ])
                    continue
                }
                options.append(option)
            }
            inline = options
        case let other?:
            reader.note("inline", "is \(FormMemberReader.shown(other)), not an array; ignored")
            inline = nil
        }
        switch json["link"] {
        case nil, .null?:
            link = nil
        case .object(let object)?:
            let (link, problems) = Self.readLink(object, path: JSONPath.appending(.key("link"), to: path))
            reader.note(problems)
            self.link = link
        case let other?:
            reader.note("link", "is \(FormMemberReader.shown(other)), not a link object; ignored")
            link = nil
        }
        switch json["selectedValues"] {
        case nil, .null?:
            selectedValues = nil
        case .array(let values)?:
            if let bad = values.first(where: { HALFormOption.text(of: $0) == nil }) {
                reader.note("selectedValues", "holds \(FormMemberReader.shown(bad)), not a value; ignored")
                selectedValues = nil
            } else {
                selectedValues = values
            }
        case let other?:
            reader.note("selectedValues", "is \(FormMemberReader.shown(other)), not an array; ignored")
            selectedValues = nil
        }
        minItems = reader.count("minItems")
        maxItems = reader.count("maxItems")
        problems = reader.problems
        self.json = json
    }

    /// The link of an options object, with what is wrong in it read as the HAL-FORMS draft
    /// asks (its own example writes `"templated": "false"`): a string spelling `true` or
    /// `false` as that Boolean, other wrong types left out; `nil` without an `href` string.
    static func readLink(_ object: JSONObject, path: String) -> (Link?, [HALDocumentError]) {
        if Link.isWellFormed(object) { return (Link(validated: object), []) }
        var problems: [HALDocumentError] = []
        func note(_ code: HALDocumentError.Code, _ key: String, _ message: String) {
            problems.append(
                HALDocumentError(code: code, path: JSONPath.appending(.key(key), to: path), message: message))
        }
        switch object["href"] {
        case .string?:
            break
        case nil, .null?:
            return (
                nil, [HALDocumentError(code: .missingHref, path: path, message: "options link has no href; ignored")]
            )
        case let other?:
            note(.hrefNotString, "href", "options link href is \(FormMemberReader.shown(other)), not a string; ignored")
            return (nil, problems)
        }
        var cleaned = object
        switch object["templated"] {
        case nil, .null?, .bool?:
            break
        case let other?:
            let spelled = FormMemberReader.spelled(other)?.boolValue
            note(
                .templatedNotBoolean, "templated",
                "options link templated is \(FormMemberReader.shown(other)), not true or false; read as "
                    + "\(spelled ?? false)")
            cleaned["templated"] = spelled.map { .bool($0) }
        }
        for key in ["type", "deprecation", "name", "profile", "title", "hreflang"] {
            switch object[key] {
            case nil, .null?, .string?: continue
            case let other?:
                note(
                    .linkPropertyNotString, key,
                    "options link \(key) is \(FormMemberReader.shown(other)), not a string; ignored")
                cleaned[key] = nil
            }
        }
        return (Link(validated: cleaned), problems)
    }

    /// Whether a value of this property is one item rather than a list: only when
    /// `maxItems` is 1. Without `maxItems` the number of items is unbounded, so values
    /// (`selectedValues` among them) travel as a JSON array, as the draft says.
    ///
    /// ```swift
    /// try HALFormOptions(json: ["inline": ["a", "b"], "maxItems": 1]).takesOneValue   // true
    /// try HALFormOptions(json: ["inline": ["a", "b"]]).takesOneValue                  // false
    /// ```
    public var takesOneValue: Bool { maxItems == 1 }

    /// Options items read from a fetched list, with this object's fields.
    package func items(from values: [JSONValue]) -> [HALFormOption?] {
        values.map { HALFormOption(item: $0, promptField: promptField, valueField: valueField) }
    }
}

/// One value a property may take, with the prompt to show for it.
///
/// Built from an options item: a plain value (`"FedEx"`, its own prompt) or an object whose
/// ``HALFormOptions/promptField`` and ``HALFormOptions/valueField`` members give both
/// (`{"prompt": "Federal Express", "value": "FedEx"}`).
///
/// ```swift
/// let property = try HALFormProperty(json: ["name": "size", "options": ["inline": [["prompt": "Large", "value": "L"]]]])
/// let large = property.options!.inline![0]
/// large.prompt   // "Large"
/// large.value    // "L"
/// ```
public struct HALFormOption: Sendable, Hashable {
    /// What to show.
    public let prompt: String
    /// What to send.
    public let value: JSONValue
    /// The item as written.
    public let json: JSONValue

    /// Reads an item; `nil` for an object without the value field, or an array or `null`.
    init?(item: JSONValue, promptField: String, valueField: String) {
        switch item {
        case .object(let object):
            guard let value = Self.member(valueField, of: object), !value.isNull, Self.text(of: value) != nil else {
                return nil
            }
            self.value = value
            let prompt = Self.member(promptField, of: object).flatMap { Self.text(of: $0) }
            self.prompt = prompt ?? Self.text(of: value) ?? ""
        case .null, .array:
            return nil
        default:
            value = item
            prompt = Self.text(of: item) ?? ""
        }
        json = item
    }

    /// `object[field]`, else the dotted path `field` walked through nested objects.
    static func member(_ field: String, of object: JSONObject) -> JSONValue? {
        if let value = object[field] { return value }
        guard field.contains(".") else { return nil }
        var current: JSONValue = .object(object)
        for part in field.split(separator: ".", omittingEmptySubsequences: false) {
            guard let next = current[String(part)] else { return nil }
            current = next
        }
        return current
    }

    /// The text a scalar stands for in a form: strings as they are, numbers as JSON writes
    /// them, `true`/`false`; `nil` for arrays, objects and `null`.
    package static func text(of value: JSONValue) -> String? {
        switch value {
        case .string(let string): return string
        case .int(let int): return String(int)
        case .double(let double): return double.description
        case .bool(let bool): return bool ? "true" : "false"
        case .null, .array, .object: return nil
        }
    }
}
