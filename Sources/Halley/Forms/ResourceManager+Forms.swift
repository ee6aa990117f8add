import Foundation
import HalleyHAL
import HalleyTransport

extension ResourceManager {
    /// Checks `values` against a HAL-FORMS template, then sends them with the template's
    /// method and content type, through the same request pipeline as every other request
    /// (headers, credentials, retries, timeouts, validators, events).
    ///
    /// ```swift
    /// var options = CallOptions()
    /// options.acceptsForms = true
    /// let employee = try await manager.document(at: employeeURL, options: options)
    /// let update = employee.forms["partiallyUpdateEmployee"]!
    /// let response = try await manager.submit(update, of: employee, values: ["role": "gardener"])
    /// response.status   // 200
    /// ```
    ///
    /// - **Values** are JSON (`["quantity": 2, "tags": ["a", "b"]]`); a property the caller
    ///   leaves out sends its `value` (a templated one expanded with the call's variables) or
    ///   its options' `selectedValues`; a read-only property always sends its own value.
    /// - **Checked first**, all of them, before anything is sent: `required`, `readOnly`,
    ///   `regex` (the whole value, as HTML's `pattern`), `minLength`/`maxLength`, `min`/`max`/
    ///   `step`, the `type`'s format, membership in the options (a linked list is fetched,
    ///   through the same pipeline, only for properties that have a value) and
    ///   `minItems`/`maxItems`; a name the template does not declare is a failure too. See
    ///   ``HALFormValidationError``.
    /// - **Sent** to the template's `target` (resolved against the resource), else the
    ///   resource's `self`. `GET`, `HEAD` and `DELETE` append the values to the URL's query;
    ///   other methods send a body: a JSON object (`application/json`, `+json` types) or
    ///   `application/x-www-form-urlencoded` pairs, with the template's content type as written.
    /// - **Credentials** go to the resource's origin (and allowed origins), not to wherever
    ///   the target points.
    ///
    /// - Throws: ``HalleyError``: ``HalleyError/Code/formValidation`` with every failure in
    ///   ``HalleyError/formValidationError`` (nothing sent), ``HalleyError/Code/unsupportedContentType``
    ///   (nothing sent), and as ``send(_:to:body:options:)-(_,URL,_,_)``.
    @discardableResult
    public func submit(
        _ form: HALForm, of resource: HALResource, values: [String: JSONValue] = [:],
        options: CallOptions = CallOptions()
    ) async throws -> ActionResponse {
        let encoding = try FormEncoding(form)
        let call = try Call(self, at: .resource(resource), options: options)
        let variables = call.variables
        let target = try FormSubmission.target(of: form, in: resource, resolver: call.resolver)
        let defaults = try FormSubmission.defaults(of: form, variables: variables)
        return try await call.withinDeadline {
            var lists: [String: [HALFormOption]] = [:]
            for property in form.properties where !property.readOnly {
                guard let choices = property.options else { continue }
                if let inline = choices.inline {
                    lists[property.name] = inline
                } else if choices.link != nil,
                    !FormValidator.items(of: values[property.name] ?? defaults[property.name]).isEmpty
                {
                    lists[property.name] = try await Self.fetchOptions(of: property, in: resource, call: call)
                }
            }
            let failures = FormValidator(form: form, optionLists: lists, encoding: encoding)
                .failures(provided: values, defaults: defaults)
            guard failures.isEmpty else {
                let error = HALFormValidationError(form: form.key, failures: failures)
                throw HalleyError(code: .formValidation, url: target, message: error.description, underlying: error)
            }
            let sent = FormSubmission.sentValues(of: form, provided: values, defaults: defaults)
            let (url, body) = FormSubmission.request(to: target, values: sent, encoding: encoding)
            return ActionResponse(response: try await call.act(form.method, to: url, body: body), method: form.method)
        }
    }

    /// ``submit(_:of:values:options:)`` with the values of an `Encodable`: it is encoded
    /// (with `encoder`, so your date and key strategies apply) and its encoded form is
    /// checked and sent.
    ///
    /// ```swift
    /// struct NewOrder: Encodable { let item: String; let quantity: Int }
    /// let orders = try await manager.document(at: ordersURL, options: formsOptions)
    /// let created = try await manager.submit(orders.forms.default!, of: orders, value: NewOrder(item: "book", quantity: 2))
    /// created.status   // 201
    /// ```
    ///
    /// - Throws: The encoder's error, an `EncodingError` when the value does not encode as a
    ///   JSON object, and as ``submit(_:of:values:options:)``.
    @discardableResult
    public func submit<Value: Encodable>(
        _ form: HALForm, of resource: HALResource, value: Value, encoder: JSONEncoder = JSONEncoder(),
        options: CallOptions = CallOptions()
    ) async throws -> ActionResponse {
        try await submit(form, of: resource, values: try Self.formValues(of: value, encoder: encoder), options: options)
    }

    /// The values a property may take: its inline options, or the list its options link to,
    /// fetched through the manager's pipeline (credentials to the resource's origin only) with
    /// the link's template expanded with `variables` over the call's (`{?q}` for type-ahead).
    /// The request's `Accept` is the link's `type`, else `application/json`, as the HAL-FORMS
    /// draft says (headers you configure still apply on top, as for every request).
    ///
    /// ```swift
    /// let shipping = order.forms.default!.property(named: "shipping")!
    /// let choices = try await manager.options(for: shipping, of: order, variables: ["q": "ex"])
    /// choices.map(\.prompt)   // ["Express", "Express Plus"]
    /// ```
    ///
    /// A linked list is a JSON array of values or objects, or a HAL collection whose items
    /// are in `_embedded` (the ``CallOptions/collectionItemKey`` relation, else the only one);
    /// ``HALFormOptions/promptField`` and ``HALFormOptions/valueField`` pick each object's
    /// prompt and value (a dotted `valueField` such as `_links.self.href` is followed as a
    /// path). A property without options has none (`[]`).
    ///
    /// - Throws: ``HalleyError``: ``HalleyError/Code/invalidDocument`` when the list is not
    ///   JSON, not an array or a HAL object, or an item has no value; and as
    ///   ``document(at:options:)-(URL,_)``.
    public func options(
        for property: HALFormProperty, of resource: HALResource,
        variables: [String: any TemplateValueConvertible] = [:],
        options: CallOptions = CallOptions()
    ) async throws -> [HALFormOption] {
        let call = try Call(self, at: .resource(resource), options: options)
        let local = variables.mapValues(\.templateValue)
        return try await call.withinDeadline {
            try await Self.fetchOptions(of: property, in: resource, variables: local, call: call)
        }
    }

    /// The inline options, or the linked list fetched in `call`, its link's template
    /// expanded with `variables` over the call's.
    static func fetchOptions(
        of property: HALFormProperty, in resource: HALResource, variables: [String: TemplateValue] = [:], call: Call
    ) async throws -> [HALFormOption] {
        let pipeline = call.pipeline
        let itemKey = call.options.collectionItemKey
        guard let choices = property.options else { return [] }
        if let inline = choices.inline { return inline }
        guard let link = choices.link else { return [] }
        let url = try call.resolver.targets(in: resource, variables: variables).url(of: link, includePath: nil)
        return try await pipeline.perform(
            url, method: .get, includePath: nil, acceptHeader: Self.optionsAccept(for: link)
        ) { (response) throws(HalleyError) in
            try Self.optionList(response, of: property.name, choices: choices, itemKey: itemKey)
        }
    }

    /// The `Accept` of an options list: the link's `type`, as the HAL-FORMS draft says, else
    /// `application/json`. A `type` that could not be a header value (control characters, no
    /// `/`) is a hint nobody can send, and `application/json` is asked for instead.
    static func optionsAccept(for link: Link) -> String {
        let type = link.type?.trimmingCharacters(in: .whitespaces) ?? ""
        let sendable =
            type.contains("/") && type.unicodeScalars.allSatisfy { $0 == " " || $0 == "\t" || ("!"..."~").contains($0) }
        return sendable ? type : "application/json"
    }

    /// The options in a fetched body: a JSON array, or a HAL collection's embedded items.
    static func optionList(_ response: ResourceResponse, of name: String, choices: HALFormOptions, itemKey: String)
        throws(HalleyError) -> [HALFormOption]
    {
        func invalid(_ problem: String, underlying: (any Error)? = nil) -> HalleyError {
            HalleyError(
                code: .invalidDocument, url: response.url, message: "the options of \(name) \(problem)",
                underlying: underlying)
        }
        let body: JSONValue
        do {
            body = try JSONValue(parsing: response.body)
        } catch {
            throw invalid("are not JSON: \(error.description)", underlying: error)
        }
        let items: [JSONValue]
        switch body {
        case .array(let elements):
            items = elements
        case .object(let object):
            guard let embedded = object["_embedded"]?.objectValue else {
                items = []
                break
            }
            let place = CollectionItems.place(
                embedsKey: embedded[itemKey] != nil, linksKey: false, embeddedRelations: embedded.count)
            let list =
                place == .embeddedByKey ? embedded[itemKey] : place == .onlyEmbedded ? embedded.values.first : nil
            guard let list else {
                throw invalid(
                    "are a HAL document whose _embedded has neither \(itemKey) nor a single relation "
                        + "(it has \(embedded.keys.joined(separator: ", ")))")
            }
            items = list.arrayValue ?? [list]
        default:
            throw invalid("are \(body.kindWithArticle), not a JSON array or a HAL collection")
        }
        var options: [HALFormOption] = []
        options.reserveCapacity(items.count)
        for (index, option) in choices.items(from: items).enumerated() {
            guard let option else {
                throw invalid("hold an item at \(index) without a \"\(choices.valueField)\" value: \(items[index])")
            }
            options.append(option)
        }
        return options
    }

    /// An `Encodable`'s members as form values.
    static func formValues<Value: Encodable>(of value: Value, encoder: JSONEncoder) throws -> [String: JSONValue] {
        let data = try encoder.encode(value)
        let json = try JSONValue(parsing: data)
        guard case .object(let object) = json else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [],
                    debugDescription: "form values must encode as a JSON object, not \(json.kindWithArticle)"))
        }
        return Dictionary(object.members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}

extension HALForm {
    /// Checks `values` against this template without sending anything, with the rules of
    /// ``ResourceManager/submit(_:of:values:options:)``, except that options behind a link
    /// are not fetched (membership is then not checked): for live feedback in a UI.
    ///
    /// ```swift
    /// do { try form.validate(["quantity": 12]) }
    /// catch { print(error.failures.map(\.rule)) }   // [max]
    /// ```
    ///
    /// - Parameters:
    ///   - values: The values to check, by property name.
    ///   - variables: Expand templated default values.
    /// - Throws: ``HALFormValidationError`` listing every failure.
    public func validate(_ values: [String: JSONValue], variables: [String: TemplateValue] = [:])
        throws(HALFormValidationError)
    {
        let encoding = (try? FormEncoding(self)) ?? .json(contentType: contentType)
        var defaults: [String: JSONValue]
        do {
            defaults = try FormSubmission.defaults(of: self, variables: variables)
        } catch {
            // A templated value that cannot be expanded is checked as written.
            defaults = [:]
            for property in properties where defaults[property.name] == nil {
                defaults[property.name] = property.value
            }
        }
        var lists: [String: [HALFormOption]] = [:]
        for property in properties {
            if let inline = property.options?.inline { lists[property.name] = inline }
        }
        let failures = FormValidator(form: self, optionLists: lists, encoding: encoding)
            .failures(provided: values, defaults: defaults)
        guard failures.isEmpty else { throw HALFormValidationError(form: key, failures: failures) }
    }
}
