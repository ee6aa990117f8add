import Foundation
import HalleyHAL
import HalleyTransport

/// How a template's values travel: a JSON body, a form-encoded body, or the URL's query.
enum FormEncoding: Sendable {
    /// A JSON object, sent with the template's content type as written
    /// (`application/json`, `application/merge-patch+json; charset=utf-8`).
    case json(contentType: String)
    /// `application/x-www-form-urlencoded` pairs, sent with the template's content type.
    case formURLEncoded(contentType: String)
    /// Pairs appended to the target's query: `GET`, `HEAD` and `DELETE` carry no body.
    case query

    /// The encoding of `form`.
    ///
    /// - Throws: ``HalleyError/Code/unsupportedContentType`` for a body in any other media type.
    init(_ form: HALForm) throws(HalleyError) {
        if form.sendsValuesInQuery {
            self = .query
            return
        }
        let essence =
            form.contentType.split(separator: ";", maxSplits: 1).first.map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            } ?? ""
        if essence == "application/json" || (essence.hasPrefix("application/") && essence.hasSuffix("+json")) {
            self = .json(contentType: form.contentType)
        } else if essence == "application/x-www-form-urlencoded" {
            self = .formURLEncoded(contentType: form.contentType)
        } else {
            throw HalleyError(
                code: .unsupportedContentType,
                message: "template \(form.key) asks for a \(form.contentType) body; Halley writes application/json "
                    + "(and +json types) and application/x-www-form-urlencoded")
        }
    }
}

/// Turns a template and values into a request: defaults, the target URL, the body or query.
enum FormSubmission {
    /// The value each property has when the caller gives none: its `value` (a templated one
    /// expanded with `variables`), else its options' `selectedValues`: a JSON array, as the
    /// draft serialises them, except that `maxItems: 1` makes one value.
    ///
    /// - Throws: ``HalleyError/Code/invalidTemplate`` for a templated value that cannot be expanded.
    static func defaults(of form: HALForm, variables: [String: TemplateValue]) throws(HalleyError)
        -> [String: JSONValue]
    {
        var defaults: [String: JSONValue] = [:]
        for property in form.properties {
            if var value = property.value {
                if property.templated, case .string(let template) = value {
                    do {
                        value = .string(try URITemplate(template).expand(variables))
                    } catch {
                        throw HalleyError(
                            code: .invalidTemplate,
                            message: "template \(form.key): cannot expand the value of \(property.name), "
                                + "\"\(template)\": \(error.message)",
                            underlying: error)
                    }
                }
                defaults[property.name] = value
            } else if let options = property.options, let selected = options.selectedValues, !selected.isEmpty {
                defaults[property.name] = selected.count == 1 && options.takesOneValue ? selected[0] : .array(selected)
            }
        }
        return defaults
    }

    /// What is sent, in the template's property order: the caller's value, else the default;
    /// a read-only property always sends its default. Properties with neither are left out.
    static func sentValues(of form: HALForm, provided: [String: JSONValue], defaults: [String: JSONValue])
        -> [(name: String, value: JSONValue)]
    {
        form.properties.compactMap { property in
            let given = property.readOnly ? nil : provided[property.name]?.unlessNull
            guard let value = given ?? defaults[property.name] else { return nil }
            return (property.name, value)
        }
    }

    /// Where the template sends: its `target` (a URI template is expanded with `variables`)
    /// resolved against the resource, else the resource's `self` link, else, for a resource
    /// that was not embedded, the URL it came from (the spec's stand-in for a missing `self`).
    /// Outside a call: nothing receives events.
    static func target(of form: HALForm, in resource: HALResource, variables: [String: TemplateValue])
        throws(HalleyError) -> URL
    {
        let resolver = RelationResolver(embeddedFirst: false, variables: variables, emit: { _ in }, itemKey: "item")
        return try target(of: form, in: resource, resolver: resolver)
    }

    /// ``target(of:in:variables:)`` in a call: links resolve as every link of the call does
    /// (a deprecated `self` link reports that it was followed).
    static func target(of form: HALForm, in resource: HALResource, resolver: RelationResolver)
        throws(HalleyError) -> URL
    {
        if let target = form.target {
            let link = Link(href: target, templated: target.contains("{"))
            return try resolver.url(of: link, in: resource, includePath: nil)
        }
        if let selfLink = resource.links.selfLink {
            return try resolver.url(of: selfLink, in: resource, includePath: nil)
        }
        if !resource.isEmbedded, let url = resource.baseURL {
            return url
        }
        throw HalleyError(
            code: .missingRelation, url: resource.baseURL,
            message: "template \(form.key) has no target and the resource no self link to send it to")
    }

    /// The URL and body for `values` sent with `encoding`.
    static func request(to target: URL, values: [(name: String, value: JSONValue)], encoding: FormEncoding)
        -> (url: URL, body: RequestBody)
    {
        switch encoding {
        case .json(let contentType):
            let object = JSONObject(values.map { ($0.name, $0.value) })
            return (target, .data(JSONValue.object(object).serialized(), contentType: contentType))
        case .formURLEncoded(let contentType):
            return (target, .data(Data(urlEncoded(values).utf8), contentType: contentType))
        case .query:
            let query = urlEncoded(values)
            guard !query.isEmpty, var components = URLComponents(url: target, resolvingAgainstBaseURL: false) else {
                return (target, .none)
            }
            // Appended, not replacing: the target's own query items survive.
            let existing = components.percentEncodedQuery ?? ""
            components.percentEncodedQuery = existing.isEmpty ? query : existing + "&" + query
            return (components.url ?? target, .none)
        }
    }

    /// `name=value&…` as the WHATWG URL standard serializes a form: UTF-8, every byte but
    /// ASCII letters, digits and `*-._` percent-encoded, spaces as `+`; a list repeats its name.
    static func urlEncoded(_ values: [(name: String, value: JSONValue)]) -> String {
        var pairs: [String] = []
        for (name, value) in values {
            for item in FormValidator.items(of: value) {
                guard let text = HALFormOption.text(of: item) else { continue }
                pairs.append(encode(name) + "=" + encode(text))
            }
        }
        return pairs.joined(separator: "&")
    }

    private static func encode(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                output.append("+")
            default:
                output += String(format: "%%%02X", byte)
            }
        }
        return output
    }
}

extension HALForm {
    /// Where the template sends its request from `resource`: its ``target`` (a URI template
    /// expanded with `variables`) resolved against the resource, else the resource's `self`
    /// link, else (for a resource that was not embedded) the URL it came from, as the spec
    /// says a missing `self` stands for. `GET`, `HEAD` and `DELETE` add the values to it.
    ///
    /// ```swift
    /// let order = try HALResource(
    ///     json: ["_links": ["self": ["href": "/orders/7"]], "_templates": ["default": ["method": "put"]]],
    ///     url: URL(string: "https://shop.example.com/orders/7"))
    /// let url = try order.forms.default!.targetURL(in: order)   // https://shop.example.com/orders/7
    /// ```
    ///
    /// - Throws: ``HalleyError``: ``HalleyError/Code/invalidURL`` or
    ///   ``HalleyError/Code/invalidTemplate`` for an unusable target,
    ///   ``HalleyError/Code/missingRelation`` for an embedded resource with neither.
    public func targetURL(in resource: HALResource, variables: [String: TemplateValue] = [:]) throws(HalleyError)
        -> URL
    {
        try FormSubmission.target(of: self, in: resource, variables: variables)
    }
}
