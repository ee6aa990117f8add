import Foundation
import Testing

@testable import Halley

/// The `///` examples of the HAL-FORMS API, compiled and run: each line of an example is
/// here, with its trailing comment turned into an expectation, so the docs cannot drift.
@Suite struct FormsDocExamplesTests {
    /// An in-memory API for the examples that talk to a server: an employee with a
    /// `partiallyUpdateEmployee` template, an orders collection with a `default` one, and a
    /// shipping list behind a templated link.
    private func api() async throws -> (ResourceManager, InMemoryRequester) {
        let requester = InMemoryRequester()
        await register(
            "https://api.example.com/employees/1", on: requester,
            document: [
                "_links": ["self": ["href": "/employees/1"]],
                "_templates": [
                    "default": ["method": "put", "properties": [["name": "role", "required": true]]],
                    "partiallyUpdateEmployee": ["method": "patch", "properties": [["name": "role"]]],
                ],
            ],
            writesAnswered: 200)
        await requester.register(
            "https://api.example.com/", json: ["_links": ["self": ["href": "/"], "orders": ["href": "/orders"]]])
        await register(
            "https://api.example.com/orders", on: requester,
            document: [
                "_links": ["self": ["href": "/orders"]],
                "_templates": [
                    "default": [
                        "method": "post",
                        "properties": [
                            ["name": "item", "required": true], ["name": "quantity", "max": 10],
                            [
                                "name": "shipping",
                                "options": ["link": ["href": "/shipping{?q}", "templated": true]],
                            ],
                        ],
                    ]
                ],
            ],
            writesAnswered: 201, headers: ["Location": "/orders/9"])
        await requester.register(
            "https://api.example.com/shipping?q=ex",
            json: [["prompt": "Express", "value": "X"], ["prompt": "Express Plus", "value": "XP"]])
        return (ResourceManager(requester: requester), requester)
    }

    /// Registers `url` on `requester`: `GET` answers `document`, any other method `status` and
    /// `headers` without a body.
    private func register(
        _ url: String, on requester: InMemoryRequester, document: JSONValue, writesAnswered status: Int,
        headers: HeaderFields = [:]
    ) async {
        await requester.register(url) { request in
            request.method == .get
                ? ResourceResponse(url: request.url, body: document.serialized())
                : ResourceResponse(status: status, headers: headers, url: request.url, body: Data())
        }
    }

    @Test func modelExamples() throws {
        // HALForm
        let body = Data(
            #"{"_links": {"self": {"href": "/orders/7"}}, "_templates": {"default": {"method": "put", "properties": [{"name": "quantity", "max": 10}]}}}"#
                .utf8)
        let order = try HALResource(parsing: body, url: URL(string: "https://api.example.com/orders/7"))
        let edit = order.forms.default!
        #expect(edit.method == .put)
        #expect(edit.contentType == "application/json")
        #expect(edit.property(named: "quantity")?.max == Optional(10.0))

        // HALForm.init(key:json:path:)
        let form = try HALForm(key: "default", json: ["method": "post", "properties": [["name": "title"]]])
        #expect(form.method == .post)
        #expect(form.properties.count == 1)

        // HALForm.property(named:)
        let role = try HALForm(
            key: "default", json: ["method": "put", "properties": [["name": "role", "required": true]]])
        #expect(role.property(named: "role")?.required == Optional(true))

        // HALForm.sendsValuesInQuery
        #expect(try HALForm(key: "search", json: ["method": "get"]).sendsValuesInQuery == true)

        // HALForm.targetURL(in:variables:)
        let shopOrder = try HALResource(
            json: ["_links": ["self": ["href": "/orders/7"]], "_templates": ["default": ["method": "put"]]],
            url: URL(string: "https://shop.example.com/orders/7"))
        let url = try shopOrder.forms.default!.targetURL(in: shopOrder)
        #expect(url.absoluteString == "https://shop.example.com/orders/7")

        // HALForms.init(resource:options:)
        let forms = try HALForms(resource: ["_templates": ["default": ["method": "delete"]]])
        #expect(forms.default?.method == .delete)

        // HALForms.default
        let unnamed = try HALForms(resource: [
            "_templates": ["edit": ["method": "put"], "remove": ["method": "delete"]]
        ])
        #expect(unnamed.default?.key == "edit")

        // HALFormOptions.takesOneValue
        #expect(try HALFormOptions(json: ["inline": ["a", "b"], "maxItems": 1]).takesOneValue == true)
        #expect(try HALFormOptions(json: ["inline": ["a", "b"]]).takesOneValue == false)

        // HALResource.forms
        let deletable = try HALResource(json: ["_templates": ["default": ["method": "delete"]]])
        #expect(deletable.forms.default?.method == .delete)
        #expect(deletable.forms.keys == ["default"])

        // HALResource.form(_:)
        let required = try shopOrder.form("default")
        #expect(required == shopOrder.forms.default)

        // HALFormProperty
        let property = try HALFormProperty(json: [
            "name": "quantity", "type": "number", "min": 1, "max": 10, "required": true,
        ])
        #expect(property.required == true)
        #expect(property.inputType == .number)
        #expect(property.max == Optional(10.0))

        // HALFormInputType
        let type: HALFormInputType = "email"
        #expect(type == .email)

        // HALFormOptions
        let shipping = try HALFormProperty(json: [
            "name": "shipping",
            "options": ["inline": ["FedEx", "DHL"], "maxItems": 1],
        ])
        #expect(shipping.options?.inline?.map(\.prompt) == ["FedEx", "DHL"])
        #expect(shipping.options?.maxItems == Optional(1))

        // HALFormOption
        let size = try HALFormProperty(json: [
            "name": "size", "options": ["inline": [["prompt": "Large", "value": "L"]]],
        ])
        let large = size.options!.inline![0]
        #expect(large.prompt == "Large")
        #expect(large.value == "L")

        // HALForm.validate(_:variables:)
        do {
            try edit.validate(["quantity": 12])
            Issue.record("expected a failure")
        } catch {
            #expect(error.failures.map(\.rule) == [.max])
        }

        // RequestPolicy.acceptsForms, CallOptions
        var options = CallOptions()
        options.acceptsForms = true
        #expect(options.policy.acceptsForms == true)
    }

    @Test func managerExamples() async throws {
        let (manager, _) = try await api()
        let employeeURL = URL(string: "https://api.example.com/employees/1")!
        let ordersURL = URL(string: "https://api.example.com/orders")!

        // ResourceManager.submit(_:of:values:options:)
        var options = CallOptions()
        options.acceptsForms = true
        let employee = try await manager.document(at: employeeURL, options: options)
        let update = employee.forms["partiallyUpdateEmployee"]!
        let response = try await manager.submit(update, of: employee, values: ["role": "gardener"])
        #expect(response.status == 200)

        // HALForms (from a merged result)
        let formsOptions = options
        let merged = try await manager.resource(from: employeeURL, options: formsOptions)
        let forms = try HALForms(resource: merged)
        #expect(forms.keys == ["default", "partiallyUpdateEmployee"])
        #expect(forms["partiallyUpdateEmployee"]?.method == .patch)

        // ResourceManager.submit(_:of:value:encoder:options:)
        struct NewOrder: Encodable {
            let item: String
            let quantity: Int
        }
        let orders = try await manager.document(at: ordersURL, options: formsOptions)
        let created = try await manager.submit(
            orders.forms.default!, of: orders, value: NewOrder(item: "book", quantity: 2))
        #expect(created.status == 201)

        // HALFormValidationError
        let form = orders.forms.default!
        let order = orders
        do {
            let updated = try await manager.submit(form, of: order, values: ["item": "book", "quantity": 12])
            Issue.record("expected a failure, got \(updated.status)")
        } catch let error as HalleyError where error.code == .formValidation {
            let failure = try #require(error.formValidationError?.failures.first)
            #expect(
                "\(failure.property) \(failure.rule) \(failure.message)"
                    == "quantity max 12 is more than the maximum 10")
        }

        // ResourceManager.options(for:of:variables:options:)
        let shipping = order.forms.default!.property(named: "shipping")!
        let choices = try await manager.options(for: shipping, of: order, variables: ["q": "ex"])
        #expect(choices.map(\.prompt) == ["Express", "Express Plus"])

        // FollowChain.form(_:)
        let chainOrders = manager.entry("https://api.example.com/").follow("orders")
        let create = try await chainOrders.form("default").get()
        #expect(create.method == .post)
        let chained = try await chainOrders.form("default").submit(values: ["item": "book", "quantity": 2])
        #expect(chained.location?.absoluteString == "https://api.example.com/orders/9")
    }
}
