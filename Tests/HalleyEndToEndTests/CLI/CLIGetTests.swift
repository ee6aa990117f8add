import Foundation
import Halley
import HalleyTestSupport
import Testing

/// `halley get` against the fixture API (`--fixtures Fixtures/api`): output, flags, exit codes.
@Suite struct CLIGetTests {
    let api = CLIRunner.api

    @Test func quickStartMergesContactsAndTheirWebsites() async throws {
        let result = try await CLIRunner.fixtures("get", ["\(api)/contacts/1", "--include", "[contacts].website"])
        #expect(result.status == 0, "\(result)")
        let json = try result.json()
        #expect(json["name"]?.stringValue == "Ada Lovelace")
        let contacts = try #require(json["contacts"]?.arrayValue, "\(result)")
        #expect(contacts.map { $0["name"]?.stringValue } == ["Grace Hopper", "Alan Turing"])
        #expect(
            contacts.map { $0["website"]?["url"]?.stringValue }
                == ["https://grace.example.com", "https://alan.example.com"])
        // Not included, so not fetched: Ada's own website stays a link.
        #expect(json["website"] == nil)
    }

    @Test func prettyOutputHasSortedKeysAndEndsWithANewline() async throws {
        let result = try await CLIRunner.fixtures("get", ["\(api)/contacts/1", "--include", "[contacts].website"])
        #expect(result.stdout.hasSuffix("}\n"))
        #expect(result.stdout.split(separator: "\n").count > 20, "pretty-printed over many lines")
        #expect(result.stdout.contains("\n  \"_links\": {"), "two-space indentation")
        #expect(CLIExpect.keysAreSorted(try result.json()), "\(result)")
    }

    @Test func compactIsOneLineWithSortedKeysAndTheSameDocument() async throws {
        let arguments = ["\(api)/contacts/1", "--include", "[contacts].website"]
        let pretty = try await CLIRunner.fixtures("get", arguments)
        let compact = try await CLIRunner.fixtures("get", arguments + ["--compact"])
        #expect(compact.status == 0, "\(compact)")
        #expect(compact.stdout.hasSuffix("\n"))
        #expect(compact.stdout.dropLast().contains("\n") == false, "one line: \(compact)")
        #expect(!compact.stdout.contains("  "), "no indentation: \(compact)")
        #expect(CLIExpect.keysAreSorted(try compact.json()))
        #expect(try compact.json() == pretty.json())
    }

    @Test func deprecatedLinksFollowedAreReportedOnStderr() async throws {
        let result = try await CLIRunner.fixtures("get", ["\(api)/contacts/1", "--include", "[contacts].website"])
        #expect(result.status == 0)
        let warnings = result.stderrLines.filter { $0.hasPrefix("halley: warning: followed deprecated link") }
        #expect(warnings.count == 1, "\(result)")
        let warning = try #require(warnings.first)
        #expect(warning.contains("\(api)/websites/3"))
        #expect(warning.contains("include path \"[contacts].website\""))
        #expect(warning.contains("https://api.example.com/docs/deprecations/website"))
    }

    @Test func templatedRootIsExpandedWithVar() async throws {
        let result = try await CLIRunner.fixtures("get", ["\(api)/contacts/{id}", "--var", "id=3", "--compact"])
        #expect(result.status == 0, "\(result)")
        #expect(try result.json()["name"]?.stringValue == "Alan Turing")
    }

    @Test func varReachesTemplatedLinksFollowed() async throws {
        let small = try await CLIRunner.fixtures(
            "get", ["\(api)/contacts/1", "--include", "avatar", "--var", "size=small"])
        #expect(try small.json()["avatar"]?["size"]?.stringValue == "small", "\(small)")
        let plain = try await CLIRunner.fixtures("get", ["\(api)/contacts/1", "--include", "avatar"])
        #expect(try plain.json()["avatar"]?["size"]?.stringValue == "medium", "\(plain)")
    }

    @Test func varWithCommasIsOneStringNotAList() async throws {
        // `{?page}` with the list ["2", "x"] would give `?page=2,x`; a string encodes the comma.
        let result = try await CLIRunner.fixtures("get", ["\(api)/contacts{?page}", "--var", "page=2,x"])
        CLIExpect.failure(result, status: 1, containing: ["HTTP 404", "page=2%2Cx"])
    }

    @Test func rootTemplateWithoutItsVariableDropsTheQuery() async throws {
        let result = try await CLIRunner.fixtures("get", ["\(api)/contacts{?page}", "--compact"])
        #expect(try result.json()["page"]?.intValue == 1, "\(result)")
    }

    @Test func repeatedIncludesAreAllMerged() async throws {
        let result = try await CLIRunner.fixtures(
            "get",
            [
                "\(api)/contacts/1", "--include", "website", "--include", "[contacts]", "--include", "avatar",
            ])
        let json = try result.json()
        #expect(json["website"]?["url"]?.stringValue == "https://ada.example.com", "\(result)")
        #expect(json["contacts"]?.arrayValue?.count == 2)
        #expect(json["avatar"] != nil)
    }

    @Test func embeddedIsUsedByDefaultAndPreferLinksFetchesTheLinks() async throws {
        let embedded = try await CLIRunner.fixtures("get", ["\(api)/contacts", "--include", "[item]", "--trace"])
        let items = try #require(try embedded.json()["item"]?.arrayValue, "\(embedded)")
        #expect(items.count == 2)
        #expect(items.allSatisfy { $0["email"] == nil }, "embedded summaries have no email")
        #expect(embedded.stderrLines.filter { $0.hasPrefix("trace: ") }.count == 1, "\(embedded)")

        let linked = try await CLIRunner.fixtures(
            "get",
            [
                "\(api)/contacts", "--include", "[item]", "--prefer-links", "--trace",
            ])
        let fetched = try #require(try linked.json()["item"]?.arrayValue, "\(linked)")
        #expect(fetched.map { $0["email"]?.stringValue } == ["ada@example.com", "grace@example.com"])
        #expect(linked.stderrLines.filter { $0.hasPrefix("trace: ") }.count == 3, "\(linked)")
    }

    @Test func missingRelationIsANoteNotAFailure() async throws {
        let result = try await CLIRunner.fixtures("get", ["\(api)/contacts", "--include", "[item].website"])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stderrLines.contains {
                $0.hasPrefix("halley: note: include path \"[item].website\"") && $0.contains("\"website\"")
            }, "\(result)")
        #expect(result.stderrLines.count == 1, "one note, not one per item: \(result)")
    }

    // MARK: Partial results

    @Test func failedNestedRelationshipFailsTheCommand() async throws {
        let result = try await CLIRunner.fixtures("get", ["\(api)/contacts/1", "--include", "[contacts].manager"])
        CLIExpect.failure(result, status: 1, containing: ["HTTP 404", "\(api)/contacts/99", "[contacts].manager"])
    }

    @Test func allowPartialKeepsTheRestListsFailuresAndExitsZero() async throws {
        let result = try await CLIRunner.fixtures(
            "get",
            [
                "\(api)/contacts/1", "--include", "[contacts].manager", "--include", "website", "--allow-partial",
            ])
        #expect(result.status == 0, "\(result)")
        let json = try result.json()
        #expect(json["website"]?["url"]?.stringValue == "https://ada.example.com")
        #expect(json["contacts"]?.arrayValue?.count == 2)
        #expect(json["contacts"]?[0]?["manager"] == nil)
        let failures = result.stderrLines.filter { $0.hasPrefix("halley: partial: ") }
        #expect(
            failures == [
                "halley: partial: include path \"[contacts].manager\", URL \(api)/contacts/99: "
                    + "HTTP 404 Not Found: no fixture file for this URL"
            ], "\(result)")
    }

    @Test func allowPartialStillFailsWhenTheRootFails() async throws {
        let result = try await CLIRunner.fixtures("get", ["\(api)/contacts/99", "--allow-partial"])
        CLIExpect.failure(result, status: 1, containing: ["HTTP 404"])
    }

    // MARK: Exit codes

    @Test func missingRootDocumentExitsOne() async throws {
        let result = try await CLIRunner.fixtures("get", ["\(api)/nowhere"])
        CLIExpect.failure(
            result, status: 1,
            containing: ["halley: HTTP 404 Not Found: no fixture file for this URL (URL \(api)/nowhere)"])
        #expect(result.stderrLines.count == 1)
    }

    /// Inputs the tool cannot use: exit 3 with one line naming the problem.
    @Test(arguments: [
        (["/broken/not-json"], "invalid JSON"),
        (["/broken/array"], "must be an object"),
        (["/broken/links", "--include", "avatar"], "link has no href"),
        (["/broken/links", "--include", "search"], "offset 7"),
        (["/broken/links", "--include", "elsewhere"], "scheme \"ftp\""),
        (["/contacts/1", "--include", "[contacts"], "never closed"),
        (["/contacts/1", "--include", "contacts..website"], "include path"),
        (["/contacts{/id"], "offset 32"),
    ])
    func invalidInputExitsThree(arguments: [String], fragment: String) async throws {
        let result = try await CLIRunner.fixtures("get", [api + arguments[0]] + arguments.dropFirst())
        CLIExpect.failure(result, status: 3, containing: [fragment])
        #expect(result.stderrLines.count == 1, "\(result)")
    }

    @Test func hostileBodiesGiveOneSafeLine() async throws {
        // Raw ESC, CR and LF bytes in the body must neither split the line nor reach the terminal.
        let escape = try await CLIRunner.fixtures("get", ["\(api)/broken/escape"])
        CLIExpect.failure(escape, status: 3, containing: ["invalid JSON"])
        #expect(escape.stderrLines.count == 1, "\(escape)")
        #expect(!escape.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(escape)")

        // Nesting past the parser's limit: a typed error whose very long JSON path is shortened.
        let deep = try await CLIRunner.fixtures("get", ["\(api)/broken/deep"])
        CLIExpect.failure(deep, status: 3, containing: ["nested deeper than", "\(api)/broken/deep"])
        #expect((deep.stderrLines.first?.count ?? 0) <= 800, "\(deep)")
    }

    /// A path alone, a URL without a host, a scheme no requester takes. (A word without a
    /// scheme, `not-a-url`, is a host now, as curl reads it: `http://not-a-url`.)
    @Test(arguments: ["/contacts/1", "http:///contacts/{x}", "ftp://files.example.com/report"])
    func unusableRootURLExitsThree(root: String) async throws {
        let result = try await CLIRunner.fixtures("get", [root])
        CLIExpect.failure(result, status: 3)
    }
}

/// `--fixtures DIR` never reads outside DIR: a query or a symlink that would leave it is exit 3.
@Suite struct CLIFixturesEscapeTests {
    @Test func queriesAndSymlinksThatLeaveTheDirectoryAreRefusedWithExit3() async throws {
        let manager = FileManager.default
        let root = manager.temporaryDirectory.appendingPathComponent("halley-escape-\(UUID().uuidString)")
        let directory = root.appendingPathComponent("api")
        try manager.createDirectory(at: directory.appendingPathComponent("a"), withIntermediateDirectories: true)
        defer { try? manager.removeItem(at: root) }
        try Data(#"{"_links": {"self": {"href": "/a/b"}}, "ok": true}"#.utf8).write(
            to: directory.appendingPathComponent("a/b.json"))
        try manager.createDirectory(at: root.appendingPathComponent("out"), withIntermediateDirectories: true)
        try Data(#"{"secret": "do not read"}"#.utf8).write(to: root.appendingPathComponent("out/secret.json"))
        try manager.createSymbolicLink(
            at: directory.appendingPathComponent("link.json"),
            withDestinationURL: root.appendingPathComponent("out/secret.json"))

        let ok = try await CLIRunner.run(["get", "--fixtures", directory.path, "https://api.example.com/a/b"])
        #expect(ok.status == 0, "\(ok)")
        for url in ["https://api.example.com/a?x=/../../out/secret", "https://api.example.com/link"] {
            let result = try await CLIRunner.run(["get", "--fixtures", directory.path, url])
            CLIExpect.failure(result, status: 3, containing: ["outside the fixture directory"])
            #expect(!result.stdout.contains("do not read") && !result.stderr.contains("do not read"), "\(result)")
        }
    }
}
