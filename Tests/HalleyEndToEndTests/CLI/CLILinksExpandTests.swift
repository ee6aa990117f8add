import Foundation
import HalleyTestSupport
import Testing

/// `halley links` (the link table) and `halley expand` (URI templates).
@Suite struct CLILinksExpandTests {
    let api = CLIRunner.api

    /// The table's rows split at the header's column starts.
    func cells(_ table: String) -> [[String]] {
        let lines = table.split(separator: "\n").map(String.init)
        guard let header = lines.first else { return [] }
        let names = ["REL", "NAME", "HREF", "TEMPLATED", "TITLE", "DEPRECATION", "SOURCE"]
        let starts = names.compactMap { name in
            header.range(of: name).map { header.distance(from: header.startIndex, to: $0.lowerBound) }
        }
        return lines.map { line in
            let characters = Array(line)
            return starts.enumerated().map { index, start in
                let end = index + 1 < starts.count ? starts[index + 1] : characters.count
                guard start < characters.count else { return "" }
                return String(characters[start..<min(end, characters.count)]).trimmingCharacters(in: .whitespaces)
            }
        }
    }

    @Test func tableHasAHeaderAndOneAlignedRowPerLink() async throws {
        let result = try await CLIRunner.fixtures("links", ["\(api)/contacts/1"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        let rows = cells(result.stdout)
        #expect(
            rows == [
                ["REL", "NAME", "HREF", "TEMPLATED", "TITLE", "DEPRECATION", "SOURCE"],
                ["self", "-", "/contacts/1", "no", "-", "-", "_links"],
                ["contacts", "grace", "/contacts/2", "no", "Grace Hopper", "-", "_links"],
                ["contacts", "alan", "/contacts/3", "no", "Alan Turing", "-", "_links"],
                ["website", "-", "/websites/1", "no", "Personal website", "-", "_links"],
                ["avatar", "-", "/contacts/1/avatar{?size}", "yes", "Profile picture", "-", "_links"],
            ], "\(result)")
        // Aligned: every column starts where its header does, after at least two spaces.
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let hrefColumn = try #require(lines.first?.range(of: "HREF")).lowerBound.utf16Offset(in: lines[0])
        for line in lines.dropFirst() {
            let characters = Array(line)
            #expect(
                characters[hrefColumn - 2] == " " && characters[hrefColumn - 1] == " " && characters[hrefColumn] != " ",
                "\(line)")
        }
        #expect(lines.allSatisfy { !$0.hasSuffix(" ") }, "no trailing spaces")
    }

    @Test func deprecationAndTemplatedURLWithVar() async throws {
        let result = try await CLIRunner.fixtures("links", ["\(api)/contacts/{id}", "--var", "id=3"])
        #expect(result.status == 0, "\(result)")
        let website = try #require(cells(result.stdout).first { $0.first == "website" }, "\(result)")
        #expect(website[5] == "https://api.example.com/docs/deprecations/website")
    }

    @Test func malformedLinksAreListedOnStderrAndTheRestShown() async throws {
        let result = try await CLIRunner.fixtures("links", ["\(api)/broken/links"])
        #expect(result.status == 0, "\(result)")
        #expect(cells(result.stdout).dropFirst().map { $0[0] } == ["self", "search", "home", "elsewhere"])
        #expect(
            result.stderrLines == [
                "halley: warning: malformed link skipped: link has no href at $._links.avatar in \(api)/broken/links"
            ] || result.stderrLines.count == 1 && result.stderrLines[0].contains("$._links.avatar"), "\(result)")
        // The server's terminal escape is shown, not sent to the terminal.
        #expect(!result.stdout.unicodeScalars.contains { $0.value == 0x1B })
        #expect(result.stdout.contains("Back home \\u001B[31mwith a terminal escape"))
    }

    @Test func linksOfTheLinkHeaderAreMarkedAndItsProblemsListed() async throws {
        let server = try await TestServer.shared()
        let lines = [
            #"</linked-item/2>; rel="next", </linked-item/9>; rel=next; title="Page 9""#,
            #"<https://docs.example/orders>; rel="describedby"; title*=UTF-8''Bestellungen%20%C3%BC"#,
            "</linked-item/5> rel=broken",
        ]
        let query = lines.map { "link=" + TestServer.queryValue($0) }.joined(separator: "&")
        let url = server.url("/link-header?\(query)&next=%2Flinked-item%2F2&echo=cli")
        let result = try await CLIRunner.run(["links", url.absoluteString])
        #expect(result.status == 0, "\(result)")
        #expect(
            cells(result.stdout).dropFirst() == [
                ["self", "-", "/link-header", "no", "-", "-", "_links"],
                ["next", "-", "/linked-item/2", "no", "-", "-", "_links"],
                ["next", "-", server.url("/linked-item/9").absoluteString, "no", "Page 9", "-", "header"],
                ["describedby", "-", "https://docs.example/orders", "no", "Bestellungen \u{FC}", "-", "header"],
            ], "\(result)")
        let offset = lines.joined(separator: ", ").utf8.count - " rel=broken".utf8.count
        #expect(
            result.stderrLines == [
                "halley: warning: malformed link skipped: expected \";\" or \",\" after the link to </linked-item/5>, "
                    + "found \"r\" at Link header, byte \(offset + 1) in \(url.absoluteString)"
            ], "\(result)")
    }

    @Test(arguments: [("/broken/not-json", Int32(3)), ("/broken/array", Int32(3)), ("/nowhere", Int32(1))])
    func failuresUseTheSameExitCodes(path: String, status: Int32) async throws {
        let result = try await CLIRunner.fixtures("links", [api + path])
        CLIExpect.failure(result, status: status)
    }

    @Test func linksAcceptsHeadersButNotGetOptions() async throws {
        let ok = try await CLIRunner.fixtures("links", ["\(api)/", "--header", "Accept-Language: en"])
        #expect(ok.status == 0, "\(ok)")
        let result = try await CLIRunner.fixtures("links", ["\(api)/", "--include", "contacts"])
        CLIExpect.failure(result, status: 2, containing: ["--include"])
    }

    // MARK: expand

    @Test(arguments: [
        ("/contacts{?page,size}", ["page=2", "size=10"], "/contacts?page=2&size=10"),
        ("/contacts{?page,size}", [], "/contacts"),
        ("{/ids*}", ["ids=a,b,c"], "/a%2Cb%2Cc"),
        ("/search{?q}", ["q=hal & json"], "/search?q=hal%20%26%20json"),
        ("{+base}/x", ["base=http://a.example/p"], "http://a.example/p/x"),
        ("/q{?empty}", ["empty="], "/q?empty="),
    ])
    func expandPrintsTheExpansion(template: String, variables: [String], expected: String) async throws {
        let result = try await CLIRunner.run(["expand", template] + variables.flatMap { ["--var", $0] })
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == expected + "\n")
        #expect(result.stderr.isEmpty)
    }

    @Test(arguments: [("/contacts{?page", 9), ("{=x}", 1), ("/a}", 2), ("{x:0}", 3)])
    func invalidTemplateExitsThreeWithTheOffset(template: String, offset: Int) async throws {
        let result = try await CLIRunner.run(["expand", template])
        CLIExpect.failure(result, status: 3, containing: ["invalid URI template", "offset \(offset)"])
    }

    @Test func expandRefusesAVarWithoutEquals() async throws {
        let result = try await CLIRunner.run(["expand", "{x}", "--var", "x"])
        CLIExpect.failure(result, status: 2, containing: ["NAME=VALUE"])
    }
}
