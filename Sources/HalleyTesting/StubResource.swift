import Foundation
import Halley

/// A HAL resource declared in Swift: properties, links, embedded resources and HAL-FORMS
/// templates, for a ``StubAPI`` to serve.
///
/// ```swift
/// let ann = api.resource(
///     "/contacts/1",
///     StubResource(["name": "Ann"])
///         .link("website", "/websites/1")
///         .link("friends", "/contacts/1/friends{?page,size}", templated: true)
///         .embedding("manager", StubResource(["name": "Bob"], selfLink: "/contacts/2"))
///         .form(method: .put, properties: [StubFormProperty("name", required: true)]))
/// ```
///
/// Each method returns a copy with the addition, so a declaration reads top to bottom.
public struct StubResource: Sendable {
    /// The resource's own attributes (everything but `_links`, `_embedded`, `_templates`).
    public var properties: JSONObject
    /// The `self` link's href; a resource served at a path gets that path when it has none.
    public var selfLink: String?
    private var links: [(rel: String, links: [StubLink], asArray: Bool)] = []
    private var embedded: [(rel: String, resources: [StubResource], asArray: Bool)] = []
    private var forms: [(key: String, form: StubForm)] = []

    /// A resource with these attributes and, optionally, its `self` href.
    public init(_ properties: JSONObject = [:], selfLink: String? = nil) {
        self.properties = properties
        self.selfLink = selfLink
    }

    /// Adds a link under `rel` (a second link under the same `rel` makes it an array).
    public func link(
        _ rel: String, _ href: String, templated: Bool = false, name: String? = nil, title: String? = nil
    ) -> StubResource {
        adding(rel, [StubLink(href: href, templated: templated, name: name, title: title)], asArray: false)
    }

    /// Adds links under `rel` as an array, even one or none (a to-many relationship).
    public func links(_ rel: String, _ hrefs: [String]) -> StubResource {
        adding(rel, hrefs.map { StubLink(href: $0) }, asArray: true)
    }

    /// Embeds one resource under `rel`.
    public func embedding(_ rel: String, _ resource: StubResource) -> StubResource {
        var copy = self
        copy.embedded.append((rel, [resource], false))
        return copy
    }

    /// Embeds resources under `rel` as an array (a to-many relationship).
    public func embedding(_ rel: String, _ resources: [StubResource]) -> StubResource {
        var copy = self
        copy.embedded.append((rel, resources, true))
        return copy
    }

    /// Adds a HAL-FORMS template under `key` in `_templates`.
    ///
    /// - Parameters:
    ///   - target: Where the form is submitted; `nil` leaves it out (the resource's `self`).
    public func form(
        _ key: String = "default", method: RequestMethod, target: String? = nil, title: String? = nil,
        contentType: String? = nil, properties: [StubFormProperty] = []
    ) -> StubResource {
        var copy = self
        let form = StubForm(
            method: method, target: target, title: title, contentType: contentType, properties: properties)
        copy.forms.append((key, form))
        return copy
    }

    /// The resource as a HAL document, its `self` link set to `path` unless it has one.
    public func json(servedAt path: String? = nil) -> JSONValue {
        var object = JSONObject()
        var linkObject = JSONObject()
        if let href = selfLink ?? path { linkObject["self"] = ["href": .string(href)] }
        for (rel, links, asArray) in links {
            let values = (linkObject[rel].map { $0.arrayValue ?? [$0] } ?? []) + links.map(\.json)
            linkObject[rel] = asArray || values.count > 1 ? .array(values) : values[0]
        }
        if !linkObject.isEmpty { object["_links"] = .object(linkObject) }
        for (key, value) in properties.members { object[key] = value }
        if !embedded.isEmpty {
            var embeddedObject = JSONObject()
            for (rel, resources, asArray) in embedded {
                let values = resources.map { $0.json() }
                embeddedObject[rel] = asArray ? .array(values) : values[0]
            }
            object["_embedded"] = .object(embeddedObject)
        }
        if !forms.isEmpty {
            object["_templates"] = .object(JSONObject(forms.map { ($0.key, $0.form.json) }))
        }
        return .object(object)
    }

    private func adding(_ rel: String, _ links: [StubLink], asArray: Bool) -> StubResource {
        var copy = self
        copy.links.append((rel, links, asArray))
        return copy
    }
}

/// A link of a ``StubResource``.
public struct StubLink: Sendable, Hashable {
    /// The target URL or URI template, usually a path (`/contacts/1`).
    public var href: String
    /// Whether ``href`` is an RFC 6570 template.
    public var templated: Bool
    /// The link's `name`, which tells apart links under one rel.
    public var name: String?
    /// The link's `title`.
    public var title: String?

    /// A link to `href`.
    public init(href: String, templated: Bool = false, name: String? = nil, title: String? = nil) {
        self.href = href
        self.templated = templated
        self.name = name
        self.title = title
    }

    var json: JSONValue {
        var object: JSONObject = ["href": .string(href)]
        if templated { object["templated"] = true }
        if let name { object["name"] = .string(name) }
        if let title { object["title"] = .string(title) }
        return .object(object)
    }
}

/// A HAL-FORMS template of a ``StubResource``.
struct StubForm: Sendable {
    var method: RequestMethod
    var target: String?
    var title: String?
    var contentType: String?
    var properties: [StubFormProperty]

    var json: JSONValue {
        var object: JSONObject = ["method": .string(method.rawValue)]
        if let target { object["target"] = .string(target) }
        if let title { object["title"] = .string(title) }
        if let contentType { object["contentType"] = .string(contentType) }
        object["properties"] = .array(properties.map(\.json))
        return .object(object)
    }
}

/// A property of a HAL-FORMS template: what a client must send and how it is checked.
public struct StubFormProperty: Sendable {
    /// The property's name.
    public var name: String
    /// Whether a submission must include it.
    public var required: Bool
    /// A regular expression the value must match.
    public var regex: String?
    /// The value the form suggests.
    public var value: JSONValue?
    /// The HTML input type (`text`, `email`, `number`, ...).
    public var type: String?
    /// The label a user sees.
    public var prompt: String?
    /// Further HAL-FORMS attributes (`min`, `maxLength`, `options`, ...), as written.
    public var attributes: JSONObject

    /// A property named `name`.
    public init(
        _ name: String, required: Bool = false, regex: String? = nil, value: JSONValue? = nil,
        type: String? = nil, prompt: String? = nil, attributes: JSONObject = [:]
    ) {
        self.name = name
        self.required = required
        self.regex = regex
        self.value = value
        self.type = type
        self.prompt = prompt
        self.attributes = attributes
    }

    var json: JSONValue {
        var object: JSONObject = ["name": .string(name)]
        if required { object["required"] = true }
        if let regex { object["regex"] = .string(regex) }
        if let value { object["value"] = value }
        if let type { object["type"] = .string(type) }
        if let prompt { object["prompt"] = .string(prompt) }
        for (key, value) in attributes.members { object[key] = value }
        return .object(object)
    }
}
