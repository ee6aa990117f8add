import Foundation

/// One HAL-FORMS template: what a client can do at a resource (the method, where to send it,
/// in which media type) and with which inputs (its ``properties``).
///
/// HAL tells a client where it can go; HAL-FORMS (`application/prs.hal-forms+json`, the
/// `_templates` object) tells it what it can do there. Spring HATEOAS writes one template per
/// affordance.
///
/// ```swift
/// let body = Data(#"{"_links": {"self": {"href": "/orders/7"}}, "_templates": {"default": {"method": "put", "properties": [{"name": "quantity", "max": 10}]}}}"#.utf8)
/// let order = try HALResource(parsing: body, url: URL(string: "https://api.example.com/orders/7"))
/// let edit = order.forms.default!
/// edit.method                               // PUT
/// edit.contentType                          // "application/json"
/// edit.property(named: "quantity")?.max     // Optional(10.0)
/// ```
///
/// Read it from a resource (``HALResource/forms``), a merged result (``HALForms/init(resource:options:)``)
/// or a model (`let _templates: HALForms?`); submit it with
/// ``ResourceManager/submit(_:of:values:options:)``.
public struct HALForm: Sendable, Hashable {
    /// The template's key in `_templates`: `default` when it is the only one (the spec's
    /// convention, which Spring HATEOAS follows), otherwise a name such as `updateEmployee`.
    /// Without a `default` key, the first template is the default (``HALForms/default``).
    public let key: String
    /// A human-readable title; `nil` when the template has none (show ``key`` instead).
    public let title: String?
    /// The HTTP method, upper-cased (Spring HATEOAS writes `put`, HTTP methods are upper
    /// case). An empty `method` is `GET`, as the spec says.
    public let method: RequestMethod
    /// Where to send the request, as written; `nil` means the resource's own `self` link.
    public let target: String?
    /// The media type of the request body: `application/json` when the template has none or
    /// an empty one.
    public let contentType: String
    /// The inputs, in document order.
    public let properties: [HALFormProperty]
    /// The template object as written, including members HAL-FORMS does not define.
    public let json: JSONObject
    /// Members of the template and of its properties that could not be read as written, each
    /// with its JSON path: what the draft calls values a client cannot parse. Each was read
    /// as the value it spells (`"true"` as `true`, `"1"` as 1) or, failing that, as absent,
    /// and the message says which. Empty for a well-formed template.
    public let problems: [HALDocumentError]

    /// The content type used when a template names none.
    public static let defaultContentType = "application/json"

    /// Reads a template object, checking every member HAL-FORMS defines.
    ///
    /// ```swift
    /// let form = try HALForm(key: "default", json: ["method": "post", "properties": [["name": "title"]]])
    /// form.method              // POST
    /// form.properties.count    // 1
    /// ```
    ///
    /// A member that only describes an input (`required`, `min`, `options`, ...) and has the
    /// wrong type does not cost the template: it is read as the HAL-FORMS draft asks (a string
    /// spelling the right type, such as `"true"` or `"1"`, as that value, anything else as
    /// absent) and recorded in ``problems``.
    ///
    /// - Parameters:
    ///   - key: The template's key in `_templates`.
    ///   - json: The template object.
    ///   - path: Its JSON path, used in errors.
    /// - Throws: ``HALDocumentError`` with ``HALDocumentError/Code/missingMethod``,
    ///   ``HALDocumentError/Code/missingPropertyName`` or ``HALDocumentError/Code/invalidFormMember``
    ///   and the JSON path of the offending member, for what the template cannot be used without:
    ///   its `method`, `target` and `contentType`, its `properties` array and each property's
    ///   object and `name`.
    public init(key: String, json: JSONObject, path: String = "$") throws(HALDocumentError) {
        var reader = FormMemberReader(object: json, path: path, what: "template")
        self.key = key
        guard let methodText = try reader.requiredString("method") else {
            throw HALDocumentError(code: .missingMethod, path: path, message: "template \(key) has no method")
        }
        let trimmed = methodText.trimmingCharacters(in: .whitespaces)
        guard trimmed.isEmpty || trimmed.unicodeScalars.allSatisfy(FormMemberReader.isTokenCharacter) else {
            throw reader.invalid("method", "\"\(methodText)\" is not an HTTP method")
        }
        method = trimmed.isEmpty ? .get : RequestMethod(rawValue: trimmed.uppercased())
        // Where and how the request goes is never guessed: these throw rather than default.
        target = try reader.requiredString("target").flatMap { $0.isEmpty ? nil : $0 }
        let contentType = try reader.requiredString("contentType")?.trimmingCharacters(in: .whitespaces) ?? ""
        self.contentType = contentType.isEmpty ? Self.defaultContentType : contentType
        title = reader.string("title")
        var properties: [HALFormProperty] = []
        switch json["properties"] {
        case nil, .null?:
            break
        case .array(let elements)?:
            let propertiesPath = JSONPath.appending(.key("properties"), to: path)
            properties.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                let elementPath = JSONPath.appending(.index(index), to: propertiesPath)
                guard case .object(let object) = element else {
                    throw HALDocumentError(
                        code: .invalidFormMember, path: elementPath,
                        message: "template property is \(FormMemberReader.shown(element)), not an object")
                }
                let property = try HALFormProperty(json: object, path: elementPath)
                reader.note(property.problems)
                properties.append(property)
            }
        case let other?:
            throw reader.invalid("properties", "is \(FormMemberReader.shown(other)), not an array of property objects")
        }
        self.properties = properties
        self.problems = reader.problems
        self.json = json
    }

    /// The first property named `name`.
    ///
    /// ```swift
    /// let form = try HALForm(key: "default", json: ["method": "put", "properties": [["name": "role", "required": true]]])
    /// form.property(named: "role")?.required   // Optional(true)
    /// ```
    public func property(named name: String) -> HALFormProperty? {
        properties.first { $0.name == name }
    }

    /// Whether the request carries the values in the URL's query (`GET`, `HEAD`, `DELETE`, as
    /// the spec says) rather than in a body.
    ///
    /// ```swift
    /// try HALForm(key: "search", json: ["method": "get"]).sendsValuesInQuery   // true
    /// ```
    public var sendsValuesInQuery: Bool {
        method == .get || method == .head || method == .delete
    }
}

extension HALForm: CustomStringConvertible {
    /// `default: PUT (application/json) title "Edit order"; properties quantity, note`.
    public var description: String {
        var text = "\(key): \(method) (\(contentType))"
        if let target { text += " to \(target)" }
        if let title { text += " title \"\(title)\"" }
        if !properties.isEmpty { text += "; properties " + properties.map(\.name).joined(separator: ", ") }
        return text
    }
}

/// The HAL-FORMS templates of a resource (its `_templates` object): one ``HALForm`` per key,
/// `default` first, then in document order. Without a `default` key the first template is
/// the default (``default``), as the draft says.
///
/// ```swift
/// let merged = try await manager.resource(from: employeeURL, options: formsOptions)
/// let forms = try HALForms(resource: merged)
/// forms.keys                                // ["default", "partiallyUpdateEmployee"]
/// forms["partiallyUpdateEmployee"]?.method  // PATCH
/// ```
///
/// **Malformed templates are reported and skipped by default**, like malformed links: a
/// template with no `method`, an unreadable `target` or `contentType`, a property with no
/// `name`, or an `_templates` that is not an object is left out and recorded in ``problems``
/// (and ``HALResource/problems``) with its JSON path. **A member that only describes an input
/// costs that member, not the template**, as the draft says: `"required": "true"` is read as
/// `true`, `"maxItems": "1"` as 1, `"required": "yes"` or `"min": "low"` as absent, and each is
/// recorded too (see ``HALForm/problems``). ``HALParsingOptions/MalformedLinkPolicy/fail``
/// throws the first problem of either kind instead. A HAL client that asked for HAL-FORMS
/// still reads the document, as the spec wants ("degrading gracefully").
///
/// `HALForms` is `Codable`, so a model can declare `let _templates: HALForms?`.
public struct HALForms: Sendable, Hashable {
    /// The templates, `default` first, then in document order.
    public let forms: [HALForm]
    /// Malformed templates that were left out, and members of kept templates that were read
    /// as their defaults (``HALForm/problems``), each with its JSON path and
    /// ``HALDocumentError/templateKey``.
    public let problems: [HALDocumentError]
    /// The `_templates` object as written; empty when the resource has none.
    public let json: JSONObject
    /// Whether ``forms`` (after `default`) and ``json`` are in document order.
    let isInDocumentOrder: Bool

    /// No templates.
    public init() {
        forms = []
        problems = []
        json = JSONObject()
        isInDocumentOrder = true
    }

    /// The templates of a resource object, such as a merged result of
    /// ``ResourceManager/resource(from:includes:options:)-(URL,_,_)`` or one of its included
    /// relationships.
    ///
    /// ```swift
    /// let forms = try HALForms(resource: ["_templates": ["default": ["method": "delete"]]])
    /// forms.default?.method   // DELETE
    /// ```
    ///
    /// To submit one of them, wrap the same object in a ``HALResource`` with the URL it came
    /// from (`HALResource(json: merged, url: url)`): the resource supplies the base for a
    /// relative target, its `self` link when the template has no target, and the origin that
    /// receives credentials.
    ///
    /// - Throws: ``HALDocumentError``: ``HALDocumentError/Code/resourceNotObject`` when
    ///   `resource` is not an object; a malformed template only under
    ///   ``HALParsingOptions/MalformedLinkPolicy/fail``.
    public init(resource: JSONValue, options: HALParsingOptions = HALParsingOptions()) throws(HALDocumentError) {
        guard case .object(let object) = resource else {
            throw HALDocumentError(
                code: .resourceNotObject, path: "$",
                message: "a HAL resource must be an object, not \(resource.kindWithArticle)"
            )
        }
        try self.init(
            templates: object["_templates"], path: JSONPath.appending(.key("_templates"), to: "$"), options: options)
    }

    /// Reads the value of a `_templates` member (`nil` when the resource has none).
    ///
    /// `isInDocumentOrder` is `false` when the object came through a decoder that does not
    /// keep member order (Foundation's `JSONDecoder`): the first template is then unknown.
    init(templates: JSONValue?, path: String, options: HALParsingOptions, isInDocumentOrder: Bool = true)
        throws(HALDocumentError)
    {
        var problems: [HALDocumentError] = []
        func report(_ error: HALDocumentError, key: String?) throws(HALDocumentError) {
            var tagged = error
            tagged.templateKey = key
            if options.malformedLinks == .fail { throw tagged }
            problems.append(tagged)
        }
        var forms: [HALForm] = []
        var json = JSONObject()
        switch templates {
        case nil, .null?:
            break
        case .object(let object)?:
            json = object
            forms.reserveCapacity(object.count)
            for (key, value) in object.members {
                let templatePath = JSONPath.appending(.key(key), to: path)
                guard case .object(let template) = value else {
                    try report(
                        HALDocumentError(
                            code: .templateNotObject, path: templatePath,
                            message: "template \(key) is \(value.kindWithArticle), not an object"),
                        key: key)
                    continue
                }
                let form: HALForm
                do {
                    form = try HALForm(key: key, json: template, path: templatePath)
                } catch {
                    try report(error, key: key)
                    continue
                }
                // Members read leniently are reported like a malformed template, but the
                // template stays: the draft reads them as their defaults, not the template.
                for problem in form.problems { try report(problem, key: key) }
                forms.append(form)
            }
        case let other?:
            try report(
                HALDocumentError(
                    code: .templatesNotObject, path: path,
                    message: "_templates is \(other.kindWithArticle), not an object"),
                key: nil)
        }
        if let index = forms.firstIndex(where: { $0.key == "default" }), index > 0 {
            forms.insert(forms.remove(at: index), at: 0)
        }
        self.forms = forms
        self.problems = problems
        self.json = json
        self.isInDocumentOrder = isInDocumentOrder
    }

    /// The template keys, `default` first.
    public var keys: [String] { forms.map(\.key) }

    /// Whether there are no (well-formed) templates.
    public var isEmpty: Bool { forms.isEmpty }

    /// The default template: the one keyed `default`, else (as the HAL-FORMS draft says a
    /// client should) the first template in document order.
    ///
    /// ```swift
    /// let forms = try HALForms(resource: ["_templates": ["edit": ["method": "put"], "remove": ["method": "delete"]]])
    /// forms.default?.key   // "edit"
    /// ```
    ///
    /// `nil` when there are no templates; when a `default` template was written but left out
    /// as malformed (its problem is in ``problems``), rather than another template in its
    /// place; and when the templates were decoded by a decoder that does not keep member
    /// order (Foundation's `JSONDecoder` for a model's `let _templates: HALForms?`) and there
    /// is more than one, since the first is then unknown. Halley's own parsing and decoder
    /// keep document order.
    public var `default`: HALForm? {
        if let form = self["default"] { return form }
        guard json["default"] == nil, let first = forms.first else { return nil }
        return isInDocumentOrder || forms.count == 1 ? first : nil
    }

    /// The template with this key.
    public subscript(key: String) -> HALForm? {
        forms.first { $0.key == key }
    }

    /// The problems recorded for the template `key`: why it was left out when ``subscript(_:)``
    /// has no template for it, else the members that were read as their defaults (see
    /// ``HALForm/problems``).
    public func problems(for key: String) -> [HALDocumentError] {
        problems.filter { $0.templateKey == key }
    }
}

extension HALForms: Codable {
    /// Decodes a `_templates` object. Malformed templates are kept in ``problems``, not
    /// thrown, so a model still decodes when a template it never submits is broken.
    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        // Halley's decoder keeps member order, through its containers too; others may not.
        let keepsOrder = decoder is any JSONValueSource
        try self.init(templates: value, path: "$", options: HALParsingOptions(), isInDocumentOrder: keepsOrder)
    }

    /// Encodes the `_templates` object as it was written.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}

extension HALResource {
    /// The template `key`, or an error saying why it is not there: for callers that need it.
    ///
    /// ```swift
    /// let edit = try order.form("default")   // or order.forms.default for an optional
    /// ```
    ///
    /// `"default"` asks for the default template (``HALForms/default``): the one keyed
    /// `default`, else the first in document order, as the HAL-FORMS draft says.
    ///
    /// - Throws: ``HalleyError``: ``HalleyError/Code/missingForm`` listing the keys there are
    ///   (and hinting at ``RequestPolicy/acceptsForms`` when there are none);
    ///   ``HalleyError/Code/invalidDocument`` with the recorded problem when the template was
    ///   left out as malformed.
    public func form(_ key: String) throws(HalleyError) -> HALForm {
        if let form = key == "default" ? forms.default : forms[key] { return form }
        if let problem = forms.problems(for: key).first {
            throw HalleyError(
                code: .invalidDocument, url: baseURL,
                message: "template \(key) is malformed: \(problem.location)", underlying: problem)
        }
        let available = forms.keys
        throw HalleyError(
            code: .missingForm, url: baseURL,
            message: "template \(key) is not in the resource; available templates: "
                + (available.isEmpty
                    ? "none (was it requested as application/prs.hal-forms+json? see CallOptions.acceptsForms)"
                    : available.joined(separator: ", ")))
    }
}

/// Reads typed members of a template, property or options object.
///
/// The members that decide where and how a request goes (`method`, `target`, `contentType`)
/// are read strictly: a wrong type throws ``HALDocumentError/Code/invalidFormMember`` and the
/// template is left out. Every other member is read as the HAL-FORMS draft asks of a client
/// that meets a value it cannot use: a string that spells a value of the right type (`"true"`,
/// `"1"`) is read as that value, anything else as absent (so the member's default applies);
/// either way the member is recorded in ``problems`` with its JSON path.
struct FormMemberReader {
    let object: JSONObject
    let path: String
    /// "template", "property", "options": for messages.
    let what: String
    /// The members read leniently, in reading order.
    private(set) var problems: [HALDocumentError] = []

    init(object: JSONObject, path: String, what: String) {
        self.object = object
        self.path = path
        self.what = what
    }

    func invalid(_ key: String, _ problem: String) -> HALDocumentError {
        HALDocumentError(
            code: .invalidFormMember, path: JSONPath.appending(.key(key), to: path),
            message: "\(what) \(key) \(problem)")
    }

    /// Records a member that was not read as written.
    mutating func note(_ key: String, _ problem: String) {
        problems.append(invalid(key, problem))
    }

    /// Records problems found below this object (a property's options, an options link).
    mutating func note(_ more: [HALDocumentError]) {
        problems += more
    }

    /// A string member that decides where or how a request goes: any other type throws.
    func requiredString(_ key: String) throws(HALDocumentError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?: throw invalid(key, "is \(Self.shown(other)), not a string")
        }
    }

    /// A string member; any other type is ignored.
    mutating func string(_ key: String) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?:
            note(key, "is \(Self.shown(other)), not a string; ignored")
            return nil
        }
    }

    /// A Boolean member: `true` or `false`, the string `"true"` or `"false"` read as what it
    /// spells, anything else read as `absent`.
    mutating func bool(_ key: String, absent: Bool) -> Bool {
        switch object[key] {
        case nil, .null?: return absent
        case .bool(let value)?: return value
        case let other?:
            if case .bool(let spelled)? = Self.spelled(other) {
                note(key, "is \(Self.shown(other)), not true or false; read as \(spelled)")
                return spelled
            }
            note(key, "is \(Self.shown(other)), not true or false; read as \(absent)")
            return absent
        }
    }

    /// A number member: a JSON number, or a string holding one; anything else is ignored.
    mutating func number(_ key: String) -> Double? {
        switch object[key] {
        case nil, .null?: return nil
        case let value?:
            if let number = value.doubleValue { return number }
            if let number = Self.spelled(value)?.doubleValue, number.isFinite {
                note(key, "is \(Self.shown(value)), not a number; read as \(FormNumber(number))")
                return number
            }
            note(key, "is \(Self.shown(value)), not a number; ignored")
            return nil
        }
    }

    /// A whole number of at least zero, or a string holding one; anything else is ignored.
    mutating func count(_ key: String) -> Int? {
        switch object[key] {
        case nil, .null?: return nil
        case let value?:
            if let count = value.intValue, count >= 0 { return count }
            if let count = Self.spelled(value)?.intValue, count >= 0 {
                note(key, "is \(Self.shown(value)), not a number; read as \(count)")
                return count
            }
            note(key, "is \(Self.shown(value)), not a whole number of at least 0; ignored")
            return nil
        }
    }

    /// The JSON value a string spells (`"true"`, `" 2 "`); `nil` for other values and for
    /// strings that are not one JSON scalar.
    static func spelled(_ value: JSONValue) -> JSONValue? {
        // A short bound: a number or a literal is never long, and parsing costs nothing then.
        guard case .string(let text) = value, text.utf8.count <= 64 else { return nil }
        switch try? JSONValue(parsing: text) {
        case .bool(let bool)?: return .bool(bool)
        case .int(let int)?: return .int(int)
        case .double(let double)?: return .double(double)
        default: return nil
        }
    }

    /// A value for a message: its kind, with the value itself when it is a short scalar
    /// (`the string "true"`, `the number -1`).
    static func shown(_ value: JSONValue) -> String {
        switch value {
        case .string, .int, .double, .bool: return "the \(value.kindName) \(value.quotedInMessage)"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// RFC 9110 section 5.6.2 `tchar`: what a method token may hold.
    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return false }
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": return true
        default: return "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar)
        }
    }
}
