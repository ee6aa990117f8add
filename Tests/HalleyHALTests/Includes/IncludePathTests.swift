import Foundation
import Testing

@testable import HalleyHAL

@Suite struct IncludePathTests {
    @Test func parsesToOneToManyAndNesting() throws {
        let path = try IncludePath("[contacts].website")
        #expect(
            path.segments == [
                IncludePath.Segment(rel: "contacts", isToMany: true),
                IncludePath.Segment(rel: "website", isToMany: false),
            ])
        #expect(path.description == "[contacts].website")
    }

    @Test func relsMayHoldColonsAndSlashesAndQuotedRelsMayHoldDots() throws {
        #expect(try IncludePath("ex:owner.[ex:contacts]").segments.map(\.rel) == ["ex:owner", "ex:contacts"])
        #expect(try IncludePath("urn/rel").segments.map(\.rel) == ["urn/rel"])
        let quoted = try IncludePath(#"["http://docs.example.org/rels/contacts"].website"#)
        #expect(quoted.segments[0].rel == "http://docs.example.org/rels/contacts")
        #expect(quoted.segments[0].isToMany)
        #expect(quoted.description == #"["http://docs.example.org/rels/contacts"].website"#)
        let escaped = try IncludePath(#""a \"b\" \\ c""#)
        #expect(escaped.segments[0].rel == #"a "b" \ c"#)
    }

    @Test func atSelectsALinkByName() throws {
        let path = try IncludePath("ea:admin@primary.[\"x.y\"@\"n.1\"]")
        #expect(path.segments[0] == IncludePath.Segment(rel: "ea:admin", isToMany: false, linkName: "primary"))
        #expect(path.segments[1] == IncludePath.Segment(rel: "x.y", isToMany: true, linkName: "n.1"))
    }

    @Test(arguments: [
        ("", IncludePathError.Code.emptyPath, 0),
        ("[contacts", .unclosedBracket, 9),
        ("a..b", .emptySegment, 2),
        ("[]", .emptySegment, 1),
        (".a", .emptySegment, 0),
        ("a.", .emptySegment, 2),
        (" contacts", .whitespace, 0),
        ("contacts ", .whitespace, 8),
        ("a. b", .whitespace, 2),
        ("con tacts", .whitespace, 3),
        ("[a]b", .unexpectedCharacter, 3),
        ("a]", .unexpectedCharacter, 1),
        ("a[b]", .unexpectedCharacter, 1),
        ("[[a]]", .unexpectedCharacter, 1),
        (#""open"#, .unclosedQuote, 0),
        (#""""#, .emptySegment, 0),
        ("a@", .emptySegment, 2),
    ])
    func malformedPathsNameThePathAndOffset(path: String, code: IncludePathError.Code, offset: Int) {
        #expect {
            try IncludePath(path)
        } throws: { error in
            guard let error = error as? IncludePathError else { return false }
            return error.code == code && error.offset == offset && error.path == path
        }
    }

    @Test func pathsSharingAPrefixShareNodes() throws {
        let plan = try IncludePlan(paths: ["[contacts]", "[contacts].website", "website", "[contacts].[contacts]"])
        #expect(plan.children.count == 2)
        #expect(plan.children[0].children.map(\.path) == ["[contacts].website", "[contacts].[contacts]"])
        #expect(plan.paths == ["[contacts]", "[contacts].website", "[contacts].[contacts]", "website"])
        #expect(plan.depth == 2)
    }

    @Test func toOneAndToManyOfTheSameRelConflict() {
        #expect {
            try IncludePlan(paths: ["[contacts].website", "contacts"])
        } throws: { error in
            guard let error = error as? IncludePathError else { return false }
            return error.code == .conflictingInclude && error.path == "contacts" && error.offset == 0
        }
        #expect {
            try IncludePlan(paths: ["owner.[contacts]", "owner.contacts.website"])
        } throws: { error in
            (error as? IncludePathError).map { $0.code == .conflictingInclude && $0.offset == 6 } ?? false
        }
        #expect(throws: IncludePathError.self) { try IncludePlan(paths: ["admin@a", "admin@b"]) }
    }

    @Test func variablesAndQueryItemsAttachToTheLastSegment() throws {
        let plan = try IncludePlan([
            "[contacts]",
            Include("[contacts].website", variables: ["size": "s"], queryItems: [URLQueryItem(name: "q", value: "1")]),
        ])
        let contacts = try #require(plan.children.first)
        #expect(contacts.variables.isEmpty)
        #expect(contacts.children.first?.variables == ["size": "s"])
        #expect(contacts.children.first?.queryItems == [URLQueryItem(name: "q", value: "1")])
    }
}
