import HalleyHAL
import Testing

@Suite struct URITemplateParsingTests {
    // MARK: - Successful parses

    @Test func keepsTemplateTextAndDescription() throws {
        let template = try URITemplate("/orders{/id}{?page}")
        #expect(template.template == "/orders{/id}{?page}")
        #expect(template.description == "/orders{/id}{?page}")
    }

    @Test func variableNamesInOrderOfFirstAppearanceWithoutDuplicates() throws {
        let template = try URITemplate("{b}/x{?a,b}{&c*,a:3}{#d}{b}")
        #expect(template.variableNames == ["b", "a", "c", "d"])
    }

    @Test func variableNamesKeepDotsUnderscoresAndPercentTriplets() throws {
        let template = try URITemplate("{a.b,_c,%41x,9}")
        #expect(template.variableNames == ["a.b", "_c", "%41x", "9"])
    }

    @Test func templateWithoutExpressionsHasNoVariables() throws {
        let template = try URITemplate("http://example.com/")
        #expect(template.variableNames.isEmpty)
        #expect(try template.expand([:]) == "http://example.com/")
    }

    @Test func emptyTemplateIsValid() throws {
        let template = try URITemplate("")
        #expect(try template.expand(["x": "y"]) == "")
    }

    @Test func acceptsLargestPrefix() throws {
        let template = try URITemplate("{var:9999}")
        #expect(try template.expand(["var": "value"]) == "value")
    }

    @Test func equalityAndHashingFollowTheText() throws {
        let first = try URITemplate("{x}")
        let second = try URITemplate("{x}")
        let third = try URITemplate("{y}")
        #expect(first == second)
        #expect(first != third)
        #expect(Set([first, second, third]).count == 2)
    }

    // MARK: - Errors with codes and character offsets

    struct BadTemplate: Sendable, CustomTestStringConvertible {
        let template: String
        let code: URITemplateError.Code
        let offset: Int
        var testDescription: String { "\(template.debugDescription) -> \(code) @ \(offset)" }
    }

    static let badTemplates: [BadTemplate] = [
        // Unclosed expressions report the '{' a person has to fix.
        BadTemplate(template: "{", code: .unclosedExpression, offset: 0),
        BadTemplate(template: "{/id*", code: .unclosedExpression, offset: 0),
        BadTemplate(template: "ab{x,y", code: .unclosedExpression, offset: 2),
        BadTemplate(template: "{a{b}", code: .unclosedExpression, offset: 0),
        BadTemplate(template: "/id*}", code: .unexpectedClosingBrace, offset: 4),
        BadTemplate(template: "{x}}", code: .unexpectedClosingBrace, offset: 3),
        BadTemplate(template: "{}", code: .emptyExpression, offset: 0),
        BadTemplate(template: "a{+}", code: .emptyExpression, offset: 1),
        BadTemplate(template: "{=x}", code: .reservedOperator, offset: 1),
        BadTemplate(template: "{,x}", code: .reservedOperator, offset: 1),
        BadTemplate(template: "{!x}", code: .reservedOperator, offset: 1),
        BadTemplate(template: "{@x}", code: .reservedOperator, offset: 1),
        BadTemplate(template: "{|x}", code: .reservedOperator, offset: 1),
        BadTemplate(template: "{$var}", code: .invalidOperator, offset: 1),
        BadTemplate(template: "{-join|&|x}", code: .invalidOperator, offset: 1),
        BadTemplate(template: "{*keys?}", code: .invalidOperator, offset: 1),
        BadTemplate(template: "/people/{~thing}", code: .invalidOperator, offset: 9),
        BadTemplate(template: "{with space}", code: .invalidVariableName, offset: 5),
        BadTemplate(template: "{ leading_space}", code: .invalidVariableName, offset: 1),
        BadTemplate(template: "{??hello}", code: .invalidVariableName, offset: 2),
        BadTemplate(template: "/{default-graph-uri}", code: .invalidVariableName, offset: 9),
        BadTemplate(template: "{x,}", code: .invalidVariableName, offset: 3),
        BadTemplate(template: "{x,,y}", code: .invalidVariableName, offset: 3),
        BadTemplate(template: "{x.}", code: .invalidVariableName, offset: 3),
        BadTemplate(template: "{x..y}", code: .invalidVariableName, offset: 3),
        BadTemplate(template: "{.x.}", code: .invalidVariableName, offset: 4),
        BadTemplate(template: "{.é}", code: .invalidVariableName, offset: 2),
        BadTemplate(template: "{hello+}", code: .invalidVariableName, offset: 6),
        BadTemplate(template: "{%2x}", code: .invalidPercentEncoding, offset: 1),
        BadTemplate(template: "{a%4}", code: .invalidPercentEncoding, offset: 2),
        BadTemplate(template: "{var:0}", code: .invalidPrefix, offset: 5),
        BadTemplate(template: "{var:01}", code: .invalidPrefix, offset: 5),
        BadTemplate(template: "{var:10000}", code: .invalidPrefix, offset: 5),
        BadTemplate(template: "{var:}", code: .invalidPrefix, offset: 5),
        BadTemplate(template: "{var:prefix}", code: .invalidPrefix, offset: 5),
        BadTemplate(template: "{var:3x}", code: .invalidPrefix, offset: 5),
        BadTemplate(template: "{hello:2*}", code: .conflictingModifiers, offset: 8),
        BadTemplate(template: "{hello*:2}", code: .conflictingModifiers, offset: 7),
        BadTemplate(template: "100%", code: .invalidPercentEncoding, offset: 3),
        BadTemplate(template: "a%zz{x}", code: .invalidPercentEncoding, offset: 1),
        BadTemplate(template: "a\nb", code: .invalidLiteralCharacter, offset: 1),
        // Offsets count Characters, not bytes or scalars.
        BadTemplate(template: "café{=x}", code: .reservedOperator, offset: 5),
        BadTemplate(template: "🇫🇷{=x}", code: .reservedOperator, offset: 2),
        BadTemplate(template: "e\u{301}}", code: .unexpectedClosingBrace, offset: 1),
    ]

    @Test(arguments: badTemplates)
    func rejectsBadTemplateWithCodeAndOffset(_ bad: BadTemplate) throws {
        let error = try #require(throws: URITemplateError.self) {
            try URITemplate(bad.template)
        }
        #expect(error.code == bad.code, "\(error)")
        #expect(error.offset == bad.offset, "\(error)")
        #expect(error.template == bad.template)
    }

    @Test func errorMessageNamesProblemOffsetAndTemplate() throws {
        let error = try #require(throws: URITemplateError.self) {
            try URITemplate("{=x}")
        }
        #expect(error.message == "reserved operator '=' at offset 1 in \"{=x}\"")
        #expect(error.description == "reservedOperator: reserved operator '=' at offset 1 in \"{=x}\"")
    }

    @Test func codesCompareByRawValue() {
        #expect(URITemplateError.Code(rawValue: "invalidPrefix") == .invalidPrefix)
        #expect(URITemplateError.Code.invalidPrefix.description == "invalidPrefix")
    }
}
