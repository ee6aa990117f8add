import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Reading `_templates`: every member of the spec, Spring's shapes, merged results, models,
/// and malformed templates reported with their JSON paths (`Fixtures/hal-forms`).
@Suite struct HALFormsParsingTests {
    private func resource(_ fixture: String, options: HALParsingOptions = HALParsingOptions()) throws -> HALResource {
        try HALResource(
            parsing: Fixture.data("hal-forms/\(fixture)"), url: URL(string: "https://api.example.com/doc"),
            options: options)
    }

    @Test func everyMemberOfTheSpecIsRead() throws {
        let task = try resource("spec-task.json")
        #expect(task.problems.isEmpty)
        let form = try #require(task.forms.default)
        #expect(form.key == "default")
        #expect(form.title == "Add a task")
        #expect(form.method == .post)
        #expect(form.target == "/lists/7/tasks")
        #expect(form.contentType == "application/json")
        #expect(form.json["x-audit"]?["owner"] == "planning", "unknown template members are kept")
        #expect(
            form.properties.map(\.name) == [
                "title", "listId", "due", "effort", "notes", "tags", "assignee", "source", "colour",
            ])

        let title = try #require(form.property(named: "title"))
        #expect(title.prompt == "What needs doing?")
        #expect(title.label == "What needs doing?")
        #expect(title.required)
        #expect(!title.readOnly)
        #expect(title.regex == "[A-Z].*")
        #expect(title.minLength == 3)
        #expect(title.maxLength == 40)
        #expect(title.placeholder == "Order the tiles")
        #expect(title.type == .text)

        let listId = try #require(form.property(named: "listId"))
        #expect(listId.readOnly)
        #expect(listId.value == "7")
        #expect(listId.type == .hidden)
        #expect(listId.label == "listId", "no prompt: the name is the label")

        let effort = try #require(form.property(named: "effort"))
        #expect(effort.min == 0.5)
        #expect(effort.max == 40)
        #expect(effort.step == 0.5)
        #expect(effort.inputType == .number)

        let notes = try #require(form.property(named: "notes"))
        #expect(notes.type == .textarea)
        #expect(notes.cols == 60)
        #expect(notes.rows == 4)

        let tags = try #require(form.property(named: "tags")?.options)
        #expect(tags.inline?.map(\.prompt) == ["urgent", "buy", "call", "wait"])
        #expect(tags.inline?.map(\.value) == ["urgent", "buy", "call", "wait"])
        #expect(tags.selectedValues == ["buy"])
        #expect(tags.minItems == 0)
        #expect(tags.maxItems == 2)
        #expect(tags.link == nil)
        #expect(tags.promptField == "prompt")
        #expect(tags.valueField == "value")

        let assignee = try #require(form.property(named: "assignee")?.options)
        #expect(assignee.inline == nil)
        #expect(assignee.link?.href == "https://tasks.example.org/people{?q}")
        #expect(assignee.link?.isTemplated == true)
        #expect(assignee.link?.type == "application/json")
        #expect(assignee.promptField == "fullName")
        #expect(assignee.valueField == "login")

        let source = try #require(form.property(named: "source"))
        #expect(source.templated)
        #expect(source.type == .url)

        let colour = try #require(form.property(named: "colour"))
        #expect(colour.type == .color)
        #expect(colour.json["x-widget"] == "swatch", "unknown property members are kept")
        #expect(colour.inputType == .color)
        #expect(form.property(named: "due")?.inputType == .date)
    }

    @Test func defaultsOfTheSpecApply() throws {
        let search = try resource("spec-search.json")
        #expect(search.forms.keys == ["default", "search", "purge", "touch"], "default first, then document order")
        let quickAdd = try #require(search.forms.default)
        #expect(quickAdd.method == .post, "methods are upper-cased")
        #expect(quickAdd.contentType == "application/x-www-form-urlencoded")
        let find = try #require(search.forms["search"])
        #expect(find.contentType == HALForm.defaultContentType, "no contentType: application/json")
        #expect(find.target == nil, "no target: the resource's self")
        #expect(find.sendsValuesInQuery)
        #expect(find.property(named: "q")?.inputType == .text, "no type: text")
        #expect(find.property(named: "q")?.required == true)
        #expect(find.property(named: "size")?.readOnly == false)
        #expect(search.forms["purge"]?.properties.isEmpty == true, "no properties: an empty set")
        #expect(search.forms["purge"]?.sendsValuesInQuery == true)
        #expect(search.forms["touch"]?.method == .get, "an empty method is GET")
        #expect(search.forms["nope"] == nil)
        #expect(try HALFormProperty(json: ["name": "n", "value": .null]).value == nil, "null is no value")
        #expect(search.forms.problems(for: "search").isEmpty)
    }

    @Test func springShapesReadAsTheyAreRendered() throws {
        let order = try resource("spring-order.json")
        #expect(order.forms.keys == ["default", "partiallyUpdateOrder"])
        #expect(order.forms.default?.method == .put)
        #expect(order.forms["partiallyUpdateOrder"]?.method == .patch)
        #expect(order.forms["partiallyUpdateOrder"]?.property(named: "quantity")?.required == false)
        #expect(order.forms.default?.property(named: "number")?.readOnly == true)
        #expect(order.state["_templates"] != nil, "_templates stays in the state as written")
        #expect(order.description.contains("forms default, partiallyUpdateOrder"))

        let members = try resource("spring-members.json")
        let join = try #require(members.forms.default)
        #expect(join.title == "Join the club")
        #expect(join.property(named: "card")?.regex == "[0-9]{16}")
        #expect(join.property(named: "card")?.placeholder == "4000123412341234")
        #expect(join.property(named: "email")?.type == .email)
        #expect(join.property(named: "birthdate")?.type == .date)
        let member = try #require(members.embedded.resource(for: "members"))
        #expect(member.forms.default?.method == .delete, "embedded resources have their own templates")

        let checkout = try resource("spring-options.json")
        let shipping = try #require(checkout.forms.default?.property(named: "shipping")?.options)
        #expect(shipping.inline?.map(\.prompt) == ["Parcel (2-4 days)", "Courier (next day)"])
        #expect(shipping.inline?.map(\.value) == ["PARCEL", "COURIER"])
        #expect(shipping.inline?.first?.json["label"] == "Parcel (2-4 days)")
        #expect(shipping.minItems == 1)
        #expect(shipping.maxItems == 1)
        let quantity = try #require(checkout.forms.default?.property(named: "quantity")?.options)
        #expect(quantity.inline?.map(\.value) == [1, 2, 3, 4, 5])
        #expect(quantity.inline?.map(\.prompt) == ["1", "2", "3", "4", "5"])
    }

    @Test func mergedResultsAndModelsReadTheirTemplates() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            "https://club.example.com/members",
            text: String(decoding: try Fixture.data("hal-forms/spring-members.json"), as: UTF8.self))
        let manager = ResourceManager(requester: requester)
        let merged = try await manager.resource(
            from: URL(string: "https://club.example.com/members")!, includes: ["[members]"])
        #expect(try HALForms(resource: merged).default?.title == "Join the club")
        let member = try #require(merged["members"]?[0])
        #expect(try HALForms(resource: member).default?.method == .delete)
        #expect(throws: HALDocumentError.self) { try HALForms(resource: "not an object") }
        #expect(try HALForms(resource: ["name": "no templates"]).isEmpty)

        struct Member: Decodable {
            let name: String
            let _templates: HALForms?
        }
        let decoded = try JSONDecoder().decode(Member.self, from: member.serialized())
        #expect(decoded._templates?.default?.method == .delete)
        let reencoded = try JSONEncoder().encode(decoded._templates)
        #expect(try JSONValue(parsing: reencoded) == member["_templates"])
    }

    @Test(arguments: [
        ("missing-method.json", HALDocumentError.Code.missingMethod, "$._templates.broken"),
        ("method-not-a-token.json", .invalidFormMember, "$._templates.broken.method"),
        ("template-string.json", .templateNotObject, "$._templates.broken"),
        ("properties-object.json", .invalidFormMember, "$._templates.broken.properties"),
        ("property-string.json", .invalidFormMember, "$._templates.broken.properties[0]"),
        ("property-without-name.json", .missingPropertyName, "$._templates.broken.properties[0]"),
        ("property-empty-name.json", .missingPropertyName, "$._templates.broken.properties[0]"),
    ])
    func aMalformedTemplateIsReportedAndTheOthersKept(fixture: String, code: HALDocumentError.Code, path: String)
        throws
    {
        let document = try resource("malformed/\(fixture)")
        #expect(document.forms.keys == ["default"], "the good template stays")
        #expect(document.forms["broken"] == nil)
        let problem = try #require(document.forms.problems(for: "broken").first)
        #expect(problem.code == code)
        #expect(problem.path == path)
        #expect(problem.templateKey == "broken")
        #expect(document.problems == [problem], "resource.problems lists it")
        #expect(problem.description.contains(path))

        // Acting on it names the recorded problem.
        #expect {
            try document.form("broken")
        } throws: { error in
            (error as? HalleyError)?.code == .invalidDocument && (error as? HalleyError)?.documentError == problem
        }

        // Strict parsing throws the same problem, with the document's URL.
        #expect {
            try resource("malformed/\(fixture)", options: HALParsingOptions(malformedLinks: .fail))
        } throws: { error in
            guard let error = error as? HALDocumentError else { return false }
            return error.code == code && error.path == path && error.templateKey == "broken"
                && error.url?.absoluteString == "https://api.example.com/doc"
        }
    }

    /// A member that only describes an input costs that member, not the template: the draft
    /// reads such values as their defaults (and a string spelling the right type as that value).
    @Test(arguments: [
        ("required-string.json", HALDocumentError.Code.invalidFormMember, "$._templates.broken.properties[0].required"),
        ("min-string.json", .invalidFormMember, "$._templates.broken.properties[0].min"),
        ("step-zero.json", .invalidFormMember, "$._templates.broken.properties[0].step"),
        ("max-length-negative.json", .invalidFormMember, "$._templates.broken.properties[0].maxLength"),
        ("options-item-without-value.json", .invalidFormMember, "$._templates.broken.properties[0].options.inline[0]"),
        ("options-link-without-href.json", .missingHref, "$._templates.broken.properties[0].options.link"),
    ])
    func aMalformedMemberIsReportedAndItsTemplateKept(fixture: String, code: HALDocumentError.Code, path: String)
        throws
    {
        let document = try resource("malformed/\(fixture)")
        #expect(document.forms.keys == ["default", "broken"], "the template stays")
        let form = try #require(document.forms["broken"])
        let problem = try #require(form.problems.first)
        #expect(form.problems.count == 1)
        #expect(problem.code == code)
        #expect(problem.path == path)
        #expect(form.properties[0].problems == [problem], "the property names its own problems")
        #expect(document.forms.problems(for: "broken").map(\.path) == [path])
        #expect(document.forms.problems(for: "broken").first?.templateKey == "broken")
        #expect(document.problems.map(\.path) == [path], "resource.problems lists it")
        #expect(try document.form("broken").key == "broken", "acting on it works")

        // Strict parsing still fails, on the same member.
        #expect {
            try resource("malformed/\(fixture)", options: HALParsingOptions(malformedLinks: .fail))
        } throws: { error in
            guard let error = error as? HALDocumentError else { return false }
            return error.code == code && error.path == path && error.templateKey == "broken"
        }
    }

    @Test func membersOfTheWrongTypeAreReadAsTheDraftSays() throws {
        let basket = try resource("wrong-member-types.json")
        let form = try #require(basket.forms.default, "the template is kept")
        #expect(form.title == "Check out")
        #expect(form.method == .post)
        #expect(form.property(named: "email")?.required == true, #""true" reads as the true it spells"#)
        #expect(form.property(named: "basket")?.readOnly == true)
        #expect(form.property(named: "gift")?.required == false)
        let note = try #require(form.property(named: "note"))
        #expect(note.required == false, #""yes" reads as the default, false"#)
        #expect(note.maxLength == 140)
        #expect(note.min == nil, #""low" is no number: ignored"#)
        let delivery = try #require(form.property(named: "delivery")?.options)
        #expect(delivery.link?.href == "https://shop.example.com/delivery-options")
        #expect(delivery.link?.templated == false, #"the draft's own "templated": "false""#)
        #expect(delivery.link?.type == "application/json")
        #expect(delivery.maxItems == 1)
        #expect(delivery.json["maxItems"] == "1", "json stays as written")
        let size = try #require(form.property(named: "size")?.options)
        #expect(size.maxItems == nil, #""one" is no count: unbounded"#)
        #expect(size.selectedValues == ["M"])

        let expected: [(String, String)] = [
            (
                "$._templates.default.properties[0].required",
                #"property required is the string "true", not true or false; read as true"#
            ),
            (
                "$._templates.default.properties[1].readOnly",
                #"property readOnly is the string "true", not true or false; read as true"#
            ),
            (
                "$._templates.default.properties[2].required",
                #"property required is the string "false", not true or false; read as false"#
            ),
            (
                "$._templates.default.properties[3].required",
                #"property required is the string "yes", not true or false; read as false"#
            ),
            ("$._templates.default.properties[3].min", #"property min is the string "low", not a number; ignored"#),
            (
                "$._templates.default.properties[3].maxLength",
                #"property maxLength is the string "140", not a number; read as 140"#
            ),
            (
                "$._templates.default.properties[4].options.link.templated",
                #"options link templated is the string "false", not true or false; read as false"#
            ),
            (
                "$._templates.default.properties[4].options.maxItems",
                #"options maxItems is the string "1", not a number; read as 1"#
            ),
            (
                "$._templates.default.properties[5].options.maxItems",
                #"options maxItems is the string "one", not a whole number of at least 0; ignored"#
            ),
        ]
        #expect(form.problems.map(\.path) == expected.map(\.0))
        #expect(form.problems.map(\.message) == expected.map(\.1))
        #expect(basket.problems == basket.forms.problems)
        #expect(basket.forms.problems.allSatisfy { $0.templateKey == "default" })
        #expect(basket.forms.problems.map(\.path) == expected.map(\.0))
        #expect(form.problems.first { $0.path.hasSuffix("link.templated") }?.code == .templatedNotBoolean)

        // Strict parsing fails on the first of them.
        #expect {
            try resource("wrong-member-types.json", options: HALParsingOptions(malformedLinks: .fail))
        } throws: { error in
            (error as? HALDocumentError)?.path == expected[0].0
        }
        // A model decoding `_templates` keeps the template too.
        struct Basket: Decodable { let _templates: HALForms }
        let decoded = try JSONDecoder().decode(Basket.self, from: Fixture.data("hal-forms/wrong-member-types.json"))
        #expect(decoded._templates.default?.property(named: "email")?.required == true)
        #expect(decoded._templates.problems.count == expected.count)
    }

    @Test func withoutADefaultKeyTheFirstTemplateIsTheDefault() throws {
        let note = try resource("no-default-template.json")
        #expect(note.forms.keys == ["edit", "archive"], "document order, not sorted")
        #expect(note.forms.default?.key == "edit")
        #expect(try note.form("default").key == "edit")
        #expect(note.forms["default"] == nil, "the subscript still asks for the key")
        #expect(note.problems.isEmpty)

        // A `default` that was written but is malformed is reported, not replaced.
        let broken = try HALResource(json: [
            "_templates": ["edit": ["method": "put"], "default": ["properties": []]]
        ])
        #expect(broken.forms.keys == ["edit"])
        #expect(broken.forms.default == nil)
        #expect {
            try broken.form("default")
        } throws: { error in
            (error as? HalleyError)?.code == .invalidDocument
        }

        // Halley's decoder keeps document order, so a model finds the same default.
        struct Note: Decodable { let _templates: HALForms }
        let data = try Fixture.data("hal-forms/no-default-template.json")
        let typed = try JSONValueDecoder(JSONDecoder()).decode(Note.self, from: try JSONValue(parsing: data))
        #expect(typed._templates.default?.key == "edit")
        // Foundation's decoder may not: with several templates the first is then unknown,
        // and no template is better than a guessed one.
        let foundation = try JSONDecoder().decode(Note.self, from: data)._templates
        #expect(Set(foundation.keys) == ["edit", "archive"])
        #expect(foundation.default == nil)
        let single = try JSONDecoder().decode(
            Note.self, from: Data(#"{"_templates": {"only": {"method": "get"}}}"#.utf8))
        #expect(single._templates.default?.key == "only", "one template is the first in any order")
    }

    @Test func templatesThatAreNotAnObjectAreReportedNotThrown() throws {
        let document = try resource("malformed/templates-array.json")
        #expect(document.forms.isEmpty)
        #expect(document.problems.map(\.code) == [.templatesNotObject])
        #expect(document.problems.first?.path == "$._templates")
        #expect(document.problems.first?.templateKey == nil)
        #expect(throws: HALDocumentError.self) {
            try resource("malformed/templates-array.json", options: HALParsingOptions(malformedLinks: .fail))
        }
    }

    @Test func aMissingTemplateListsTheKeysThereAre() throws {
        let order = try resource("spring-order.json")
        #expect {
            try order.form("cancel")
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .missingForm && error.message.contains("default, partiallyUpdateOrder")
        }
        let plain = try HALResource(json: ["_links": ["self": ["href": "https://api.example.com/x"]]])
        #expect {
            try plain.form("default")
        } throws: { error in
            (error as? HalleyError)?.message.contains("acceptsForms") == true
        }
    }
}
