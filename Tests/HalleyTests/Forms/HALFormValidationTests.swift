import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Every constraint of a template property, accepted and rejected, as
/// `HALForm.validate(_:)` and `submit` check them.
@Suite struct HALFormValidationTests {
    /// A `post` template with one property built from `property`.
    private func form(_ property: JSONObject, contentType: String? = nil) throws -> HALForm {
        var template: JSONObject = ["method": "post", "properties": [.object(property)]]
        if let contentType { template["contentType"] = .string(contentType) }
        return try HALForm(key: "default", json: template)
    }

    /// The rules `value` breaks for the property `p`.
    private func rules(_ property: JSONObject, _ value: JSONValue?, contentType: String? = nil) throws
        -> [HALFormValidationError.Rule]
    {
        let template = try form(property, contentType: contentType)
        do {
            try template.validate(value.map { ["p": $0] } ?? [:])
            return []
        } catch {
            #expect(error.failures.allSatisfy { $0.property == "p" })
            return error.failures.map(\.rule)
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let property: JSONObject
        let value: JSONValue?
        let broken: [HALFormValidationError.Rule]
        var testDescription: String { "\(JSONValue.object(property)) with \(value.map(\.description) ?? "nothing")" }
        init(_ property: JSONObject, _ value: JSONValue?, _ broken: [HALFormValidationError.Rule] = []) {
            var named = property
            named["name"] = "p"
            self.property = named
            self.value = value
            self.broken = broken
        }
    }

    static let cases: [Case] = [
        // required: absent, null, "" and [] are no value.
        Case(["required": true], "x"),
        Case(["required": true], nil, [.required]),
        Case(["required": true], .null, [.required]),
        Case(["required": true], "", [.required]),
        Case(["required": true], [], [.required]),
        Case(["required": true], ["", .null], [.required]),
        Case(["required": true, "value": "preset"], nil),
        Case(["required": false], nil),
        // readOnly: the value may not change, and nothing else is checked.
        Case(["readOnly": true, "value": "7"], nil),
        Case(["readOnly": true, "value": "7"], "7"),
        Case(["readOnly": true, "value": "7"], .null),
        Case(["readOnly": true, "value": .null], .null),
        Case(["readOnly": true, "value": "7"], 7),
        Case(["readOnly": true, "value": "7"], "8", [.readOnly]),
        Case(["readOnly": true], "x", [.readOnly]),
        Case(["readOnly": true, "required": true, "maxLength": 1], nil),
        // regex: the whole value, as HTML's pattern; \d and \w are ASCII, as in ECMAScript.
        Case(["regex": "[0-9]{3}"], "123"),
        Case(["regex": "[0-9]{3}"], "1234", [.regex]),
        Case(["regex": "[0-9]{3}"], "x123", [.regex]),
        Case(["regex": "a|b"], "ab", [.regex]),
        Case(["regex": "a|b"], "b"),
        Case(["regex": "\\d+"], "42"),
        Case(["regex": "\\d+"], "٤٢", [.regex]),
        Case(["regex": "\\w+"], "héllo", [.regex]),
        Case(["regex": "[A-Z].*"], "Tiles"),
        Case(["regex": "[0-9]{3}"], "", []),
        Case(["regex": "[unclosed"], "anything"),
        Case(["regex": "[0-9]+"], 123),
        Case(["regex": "[a-z]+"], ["ab", "CD"], [.regex]),
        // minLength, maxLength: UTF-16 code units, as HTML counts.
        Case(["minLength": 2, "maxLength": 4], "abcd"),
        Case(["minLength": 2, "maxLength": 4], "a", [.minLength]),
        Case(["minLength": 2, "maxLength": 4], "abcde", [.maxLength]),
        Case(["maxLength": 1], "😀", [.maxLength]),
        Case(["maxLength": 2], "😀"),
        Case(["maxLength": 1], "é"),
        Case(["minLength": 1], ""),
        // min, max: numbers and numeric text.
        Case(["min": 1, "max": 10], 10),
        Case(["min": 1, "max": 10], "1"),
        Case(["min": 1, "max": 10], 0, [.min]),
        Case(["min": 1, "max": 10], "10.5", [.max]),
        Case(["min": -2.5], -2.5),
        Case(["min": -2.5], "-3e0", [.min]),
        Case(["min": 1], "abc", [.type]),
        Case(["min": 1], "+3", [.type]),
        Case(["min": 1], ".5e", [.type]),
        Case(["max": 5], "0x10", [.type]),
        // step: min (or 0) plus a whole multiple, in exact decimal.
        Case(["step": 0.1], "0.3"),
        Case(["step": 0.1], 0.7),
        Case(["step": 0.1], "0.25", [.step]),
        Case(["step": 0.5, "min": 0.25], "1.25"),
        Case(["step": 0.5, "min": 0.25], "1.5", [.step]),
        Case(["step": 2, "value": "1"], "5"),
        Case(["step": 2, "value": "1"], "4", [.step]),
        Case(["step": 1, "min": 1, "max": 3], 4, [.max]),
        // type formats.
        Case(["type": "number"], "12.5"),
        Case(["type": "number"], "twelve", [.type]),
        Case(["type": "number", "min": 1], "twelve", [.type]),
        Case(["type": "range"], 3),
        Case(["type": "email"], "ada@example.com"),
        Case(["type": "email"], "ada.lovelace+notes@mail.example.org"),
        Case(["type": "email"], "ada@", [.type]),
        Case(["type": "email"], "ada example.com", [.type]),
        Case(["type": "email"], "ada@-example.com", [.type]),
        Case(["type": "url"], "https://example.com/a?b=c"),
        Case(["type": "url"], "mailto:ada@example.com"),
        Case(["type": "url"], "/relative/path", [.type]),
        Case(["type": "url"], "not a url", [.type]),
        Case(["type": "date"], "2024-02-29"),
        Case(["type": "date"], "2023-02-29", [.type]),
        Case(["type": "date"], "2024-2-9", [.type]),
        Case(["type": "date"], "2024-13-01", [.type]),
        Case(["type": "month"], "2024-12"),
        Case(["type": "month"], "2024-00", [.type]),
        Case(["type": "week"], "2020-W53"),
        Case(["type": "week"], "2021-W53", [.type]),
        Case(["type": "week"], "2021-W00", [.type]),
        Case(["type": "time"], "23:59"),
        Case(["type": "time"], "07:05:09.123"),
        Case(["type": "time"], "24:00", [.type]),
        Case(["type": "time"], "7:05", [.type]),
        Case(["type": "datetime-local"], "2024-05-01T10:00"),
        Case(["type": "datetime-local"], "2024-05-01 10:00:30"),
        Case(["type": "datetime-local"], "2024-05-01", [.type]),
        Case(["type": "color"], "#a0B1c2"),
        Case(["type": "color"], "red", [.type]),
        Case(["type": "tel"], "anything goes"),
        Case(["type": "text"], ""),
        // options: membership (text or number equality) and counts.
        Case(["options": ["inline": ["FedEx", "DHL"]]], "DHL"),
        Case(["options": ["inline": ["FedEx", "DHL"]]], "UPS", [.options]),
        Case(["options": ["inline": ["FedEx", "DHL"]]], "dhl", [.options]),
        Case(["options": ["inline": [1, 2, 3]]], "2"),
        Case(["options": ["inline": [1.5, 2]]], "1.50"),
        Case(["options": ["inline": [["prompt": "Large", "value": "L"]]]], "L"),
        Case(["options": ["inline": [["prompt": "Large", "value": "L"]]]], "Large", [.options]),
        Case(["options": ["inline": ["a", "b", "c"], "maxItems": 2]], ["a", "b"]),
        Case(["options": ["inline": ["a", "b", "c"], "maxItems": 2]], ["a", "b", "c"], [.maxItems]),
        Case(["options": ["inline": ["a", "b", "c"], "minItems": 2]], ["a"], [.minItems]),
        Case(["options": ["inline": ["a", "b", "c"], "minItems": 1]], nil, [.minItems]),
        Case(["options": ["inline": ["a", "b", "c"], "minItems": 1], "required": true], nil, [.required]),
        Case(["options": ["inline": ["a", "b"], "maxItems": 2]], ["a", "x"], [.options]),
        Case(["options": ["inline": ["a", "b"], "selectedValues": ["b"]], "required": true], nil),
        Case(["options": ["link": ["href": "/choices"]]], "not checked offline"),
        // Objects: fine in JSON when no constraint reads text.
        Case([:], ["street": "Main St"]),
        Case(["maxLength": 3], ["street": "Main St"], [.type]),
    ]

    @Test(arguments: cases)
    func eachConstraintAcceptsAndRejects(_ testCase: Case) throws {
        #expect(try rules(testCase.property, testCase.value) == testCase.broken)
    }

    @Test func objectsCannotBeFormEncoded() throws {
        #expect(
            try rules(["name": "p"], ["street": "Main St"], contentType: "application/x-www-form-urlencoded")
                == [.contentType])
        #expect(
            try rules(["name": "p"], [["a": 1]], contentType: "application/x-www-form-urlencoded") == [.contentType])
        #expect(try rules(["name": "p"], ["x", "y"], contentType: "application/x-www-form-urlencoded") == [])
        let search = try HALForm(key: "search", json: ["method": "get", "properties": [["name": "where"]]])
        #expect {
            try search.validate(["where": ["lat": 1, "lon": 2]])
        } throws: { error in
            guard let failure = (error as? HALFormValidationError)?.failures.first else { return false }
            return failure.rule == .contentType
                && failure.message == "an object cannot be written in the URL's query (GET)"
        }
    }

    @Test func everyFailingPropertyIsListedAtOnceWithItsRule() throws {
        let order = try HALResource(parsing: Fixture.data("hal-forms/spring-order.json"))
        let put = try #require(order.forms.default)
        do {
            try put.validate(["quantity": 12, "number": "2024-999", "colour": "red"])
            Issue.record("expected failures")
        } catch {
            #expect(error.form == "default")
            #expect(error.properties == ["item", "quantity", "number", "colour"])
            #expect(error.failures.map(\.rule) == [.required, .max, .readOnly, .undeclared])
            #expect(error.failures(for: "quantity").first?.message == "12 is more than the maximum 10")
            #expect(error.failures(for: "quantity").first?.value == 12)
            #expect(error.failures(for: "number").first?.message.contains("\"2024-118\"") == true)
            #expect(error.failures(for: "colour").first?.message.contains("item, quantity, number") == true)
            #expect(
                error.description.hasPrefix("4 values do not satisfy template \"default\": item: a value is required"))
            #expect(error.localizedDescription == "The values of item, quantity, number and colour are not valid.")
        }
        try put.validate(["item": "Oak desk", "quantity": "3", "number": "2024-118"])
        try put.validate(["item": "Oak desk", "quantity": 3, "colour": .null])
    }

    @Test func aTemplatedDefaultIsExpandedBeforeItIsChecked() throws {
        let template = try form(["name": "p", "templated": true, "value": "https://x.example/{id}", "type": "url"])
        try template.validate([:], variables: ["id": "7"])
        let broken = try form(["name": "p", "templated": true, "value": "/{id", "regex": "x"])
        #expect(throws: HALFormValidationError.self) { try broken.validate([:]) }
    }
}
