import Foundation
import Halley
import HalleyTestSupport
import Testing

/// `halley forms` (the template tables, from `Fixtures/hal-forms`) and `halley submit` (over
/// loopback HTTP against the test server's `/forms/board`, `/echo` and `/form-to`).
@Suite struct CLIFormsTests {
    /// `Fixtures/hal-forms`, absolute.
    static let fixtures = CLIRunner.repositoryRoot.appendingPathComponent("Fixtures/hal-forms").path

    /// The rows of the table that follows the heading line starting with `key:`, split at
    /// the header's column starts.
    func table(_ output: String, key: String) -> [[String]] {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let heading = lines.firstIndex(where: { $0.hasPrefix("\(key): ") }), heading + 1 < lines.count else {
            return []
        }
        let header = lines[heading + 1]
        let starts = FormsTable.columns.compactMap { name in
            header.range(of: name).map { header.distance(from: header.startIndex, to: $0.lowerBound) }
        }
        return lines[(heading + 1)...].prefix { !$0.isEmpty }.map { line in
            let characters = Array(line)
            return starts.enumerated().map { index, start in
                let end = index + 1 < starts.count ? starts[index + 1] : characters.count
                guard start < characters.count else { return "" }
                return String(characters[start..<min(end, characters.count)]).trimmingCharacters(in: .whitespaces)
            }
        }
    }

    enum FormsTable {
        static let columns = ["NAME", "PROMPT", "TYPE", "REQUIRED", "READONLY", "VALUE", "CONSTRAINTS", "OPTIONS"]
    }

    @Test func formsPrintsEachTemplateWithItsPropertiesAndConstraints() async throws {
        let result = try await CLIRunner.run([
            "forms", "--fixtures", Self.fixtures, "https://tasks.example.org/spec-task",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(
            result.stdout.hasPrefix(
                "default: POST https://tasks.example.org/lists/7/tasks (application/json) \"Add a task\"\n"))
        let rows = table(result.stdout, key: "default")
        #expect(rows.first == FormsTable.columns)
        #expect(rows.count == 10)
        #expect(
            rows[1] == [
                "title", "What needs doing?", "text", "yes", "no", "-",
                "regex=[A-Z].* minLength=3 maxLength=40 placeholder=\"Order the tiles\"", "-",
            ])
        #expect(rows[2] == ["listId", "-", "hidden", "no", "yes", "7", "-", "-"])
        #expect(rows[4] == ["effort", "Effort (hours)", "number", "no", "no", "1", "min=0.5 max=40 step=0.5", "-"])
        #expect(rows[5][6] == "maxLength=500 cols=60 rows=4")
        #expect(rows[6][7] == "urgent, buy, call, wait; selected buy; items 0..2")
        #expect(rows[7][7] == "link https://tasks.example.org/people{?q}; items 0..1")
        #expect(rows[8][5] == "https://tasks.example.org/lists/{list}")
        #expect(rows[8][6] == "templated")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { !$0.hasSuffix(" ") }, "no trailing spaces")
    }

    @Test func severalTemplatesDefaultFirstWithHowTheirValuesTravel() async throws {
        let result = try await CLIRunner.run(["forms", "--fixtures", Self.fixtures, "https://x.example/spec-search"])
        #expect(result.status == 0, "\(result)")
        let headings = result.stdout.split(separator: "\n").filter { $0.contains(": ") && !$0.hasPrefix(" ") }
            .map(String.init).filter { !$0.hasPrefix("NAME") }
        #expect(
            headings == [
                "default: POST https://tasks.example.org/quick (application/x-www-form-urlencoded) \"Quick add\"",
                "search: GET https://tasks.example.org/tasks?view=compact (query) \"Find tasks\"",
                "purge: DELETE https://tasks.example.org/tasks?view=compact (query) \"Delete finished tasks\"",
                "touch: GET https://tasks.example.org/tasks?view=compact (query) \"An empty method is GET\"",
            ], "\(result)")
        #expect(result.stdout.contains("\n\nsearch: "), "an empty line between templates")
        #expect(table(result.stdout, key: "purge") == [FormsTable.columns])
        let spring = try await CLIRunner.run(["forms", "--fixtures", Self.fixtures, "https://x.example/spring-options"])
        #expect(
            table(spring.stdout, key: "default")[1][7]
                == "PARCEL=Parcel (2-4 days), COURIER=Courier (next day); items 1..1", "\(spring)")
    }

    @Test func malformedTemplatesAreListedAndAResourceWithoutFormsGetsANote() async throws {
        let broken = try await CLIRunner.run([
            "forms", "--fixtures", Self.fixtures, "https://api.example.com/malformed/missing-method",
        ])
        #expect(broken.status == 0, "\(broken)")
        #expect(broken.stdout.hasPrefix("default: POST https://api.example.com/things/1"))
        #expect(!broken.stdout.contains("broken: "))
        #expect(
            broken.stderrLines == [
                "halley: warning: malformed template skipped: template broken has no method "
                    + "at $._templates.broken in https://api.example.com/malformed/missing-method"
            ], "\(broken)")
        let kept = try await CLIRunner.run([
            "forms", "--fixtures", Self.fixtures, "https://api.example.com/malformed/required-string",
        ])
        #expect(kept.status == 0, "\(kept)")
        #expect(table(kept.stdout, key: "broken").dropFirst().map { $0[3] } == ["no"], #""yes" reads as false"#)
        #expect(
            kept.stderrLines == [
                "halley: warning: template broken kept: property required is the string \"yes\", not true or false; "
                    + "read as false at $._templates.broken.properties[0].required "
                    + "in https://api.example.com/malformed/required-string"
            ], "\(kept)")
        let plain = try await CLIRunner.fixtures("forms", ["\(CLIRunner.api)/contacts/1"])
        #expect(plain.status == 0, "\(plain)")
        #expect(plain.stdout.isEmpty)
        #expect(
            plain.stderrLines == ["halley: note: \(CLIRunner.api)/contacts/1 has no HAL-FORMS templates (_templates)"])
        // `links` does not report template problems as link problems.
        let links = try await CLIRunner.run([
            "links", "--fixtures", Self.fixtures, "https://api.example.com/malformed/required-string",
        ])
        #expect(links.stderr.isEmpty, "\(links)")
    }

    @Test func formsReadsMembersOfTheWrongTypeAsTheDraftSays() async throws {
        let result = try await CLIRunner.run([
            "forms", "--fixtures", Self.fixtures, "https://shop.example.com/wrong-member-types",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.hasPrefix("default: POST https://shop.example.com/orders (application/json) \"Check out\""))
        let rows = table(result.stdout, key: "default")
        try #require(rows.dropFirst().map { $0[0] } == ["email", "basket", "gift", "note", "delivery", "size"])
        #expect(rows[1][3] == "yes", "required \"true\"")
        #expect(rows[2][4] == "yes", "readOnly \"true\"")
        #expect(rows[4][6] == "maxLength=140")
        #expect(rows[5][7] == "link https://shop.example.com/delivery-options; items 0..1")
        #expect(result.stderrLines.count == 9, "\(result)")
        #expect(
            result.stderrLines.allSatisfy {
                $0.hasPrefix("halley: warning: template default kept: ")
                    && $0.hasSuffix(" in https://shop.example.com/wrong-member-types")
            }, "\(result)")
        #expect(
            result.stderrLines.contains(
                "halley: warning: template default kept: options link templated is the string \"false\", not true or "
                    + "false; read as false at $._templates.default.properties[4].options.link.templated "
                    + "in https://shop.example.com/wrong-member-types"), "\(result)")
    }

    @Test func submitUsesATemplateWithMembersOfTheWrongType() async throws {
        let server = try await TestServer.shared()
        let marker = "c" + String(UUID().uuidString.prefix(8)).lowercased() + "@example.org"
        let result = try await CLIRunner.run([
            "submit", server.url("/forms/lenient").absoluteString, "--field", "email=\(marker)",
            "--field", "delivery=standard", "--field", "colour=slate",
        ])
        #expect(result.status == 0, "\(result)")
        let place = server.url("/forms/lenient").absoluteString
        #expect(
            result.stderrLines == [
                "halley: warning: template default kept: property required is the string \"true\", not true or false; "
                    + "read as true at $._templates.default.properties[0].required in \(place)",
                "halley: warning: template default kept: property readOnly is the string \"true\", not true or false; "
                    + "read as true at $._templates.default.properties[1].readOnly in \(place)",
                "halley: warning: template default kept: options link templated is the string \"false\", not true or "
                    + "false; read as false at $._templates.default.properties[2].options.link.templated in \(place)",
                "halley: warning: template default kept: options maxItems is the string \"1\", not a number; "
                    + "read as 1 at $._templates.default.properties[2].options.maxItems in \(place)",
                "halley: note: submitted template \"default\": \(server.url("/echo/orders").absoluteString) answered "
                    + "201, Location \(server.url("/echo/created").absoluteString)",
            ], "\(result)")
        let echo = try result.json()
        #expect(
            try JSONValue(parsing: Data((echo["body"]?.stringValue ?? "").utf8))
                == [
                    "email": .string(marker), "basket": "b-12", "delivery": "standard", "colour": "slate",
                    "extras": ["card"],
                ], "\(result)")
        let fetched = try await server.requests().filter {
            $0.path == "/forms/deliveries" || $0.path == "/forms/shades"
        }
        #expect(Set(fetched.map(\.path)) == ["/forms/deliveries", "/forms/shades"])
        #expect(
            fetched.allSatisfy {
                $0.headers["accept"]
                    == ($0.path == "/forms/shades" ? "application/vnd.example.shades+json" : "application/json")
            }, "\(fetched)")

        let missing = try await CLIRunner.run(["submit", server.url("/forms/lenient").absoluteString])
        CLIExpect.failure(missing, status: 3, containing: ["1 value does not satisfy template \"default\" (email)"])
    }

    @Test func submitWithoutFormUsesTheFirstTemplateWhenNoneIsDefault() async throws {
        let server = try await TestServer.shared()
        let marker = String(UUID().uuidString.prefix(8))
        let result = try await CLIRunner.run([
            "submit", server.url("/forms/no-default").absoluteString, "--field", "text=note \(marker)",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stderrLines == [
                "halley: note: submitted template \"write\": \(server.url("/echo/notes").absoluteString) answered "
                    + "201, Location \(server.url("/echo/created").absoluteString)"
            ], "\(result)")
        #expect(try result.json()["body"]?.stringValue == #"{"text":"note \#(marker)"}"#)
        let other = try await CLIRunner.run([
            "submit", server.url("/forms/no-default").absoluteString, "--form", "archive",
        ])
        #expect(other.status == 0, "\(other)")
        #expect(try other.json()["target"] == "/echo/archive")
    }

    @Test func submitSendsAListForOptionsWithoutMaxItems() async throws {
        let server = try await TestServer.shared()
        let result = try await CLIRunner.run([
            "submit", server.url("/forms/preselected").absoluteString, "--field", "sauces=tomato",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(try result.json()["target"] == "/echo/pizzas")
        #expect(
            try result.json()["body"]?.stringValue == #"{"toppings":["basil"],"crust":"thin","sauces":["tomato"]}"#,
            "options without maxItems take a list, pre-selected or given; maxItems 1 takes one value")
    }

    @Test func submitChecksSendsAndPrintsTheAnswer() async throws {
        let server = try await TestServer.shared()
        let marker = String(UUID().uuidString.prefix(8))
        let result = try await CLIRunner.run([
            "submit", server.url("/forms/board").absoluteString, "--field", "title=Ship \(marker)",
            "--field", "points=5", "--field", "owner=grace",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stderrLines == [
                "halley: note: submitted template \"default\": \(server.url("/echo/cards").absoluteString) answered 201, "
                    + "Location \(server.url("/echo/created").absoluteString)"
            ], "\(result)")
        let echo = try result.json()
        #expect(echo["method"] == "POST")
        #expect(echo["contentType"] == "application/json")
        #expect(
            try JSONValue(parsing: Data((echo["body"]?.stringValue ?? "").utf8))
                == ["title": .string("Ship \(marker)"), "points": 5, "boardId": "board-1", "owner": "grace"],
            "points is a number, the read-only default is sent")

        let renamed = try await CLIRunner.run([
            "submit", server.url("/forms/board").absoluteString, "--form", "rename", "--field", "title=New name",
            "--field", "labels=a", "--field", "labels=b",
        ])
        #expect(renamed.status == 0, "\(renamed)")
        #expect(try renamed.json()["body"] == "title=New+name&labels=a&labels=b")
        #expect(try renamed.json()["method"] == "PATCH")
    }

    @Test func submitRejectsBadValuesWithOneLinePerFailureAndSendsNothing() async throws {
        let server = try await TestServer.shared()
        let marker = "m" + String(UUID().uuidString.prefix(8))
        let result = try await CLIRunner.run([
            "submit", server.url("/forms/board").absoluteString, "--field", "points=14", "--field", "owner=linus",
            "--field", "boardId=other", "--field", "\(marker)=1",
        ])
        CLIExpect.failure(
            result, status: 3,
            containing: [
                "5 values do not satisfy template \"default\" (title, points, boardId, owner, \(marker)); nothing was sent"
            ])
        #expect(
            Array(result.stderrLines.dropLast()) == [
                "halley: invalid: title: a value is required (required)",
                "halley: invalid: points: 14 is more than the maximum 13 (max)",
                "halley: invalid: boardId: is read-only: it must stay \"board-1\", not \"other\" (readOnly)",
                "halley: invalid: owner: \"linus\" is not one of the options: ada, alan, grace (options)",
                "halley: invalid: \(marker): is not a property of template \"default\" (its properties: title, points, "
                    + "boardId, owner, colour) (undeclared)",
            ], "\(result)")
        #expect(try await server.requests(containing: "/echo/cards").allSatisfy { !$0.path.contains(marker) })
    }

    @Test(arguments: [
        (
            ["--form", "nope"], 3,
            "template nope is not in the resource; available templates: default, rename, search, upload"
        ),
        (["--form", "upload", "--field", "file=x"], 3, "asks for a multipart/form-data body"),
        (["--field", "title"], 2, "--field \"title\" is not NAME=VALUE"),
        (["--field", "=x"], 2, "is not NAME=VALUE"),
        (["--form", ""], 2, "--form needs a template key"),
    ])
    func submitFailuresHaveTheirExitStatus(arguments: [String], status: Int32, message: String) async throws {
        let server = try await TestServer.shared()
        let result = try await CLIRunner.run(["submit", server.url("/forms/board").absoluteString] + arguments)
        CLIExpect.failure(result, status: status, containing: [message])
    }

    @Test func submitKeepsHeadersOnTheResourcesOrigin() async throws {
        let server = try await TestServer.shared()
        let other = try await TestServer.secondary()
        let secret = "k-" + UUID().uuidString
        let root = server.url("/form-to?url=" + TestServer.queryValue(other.url("/echo/there").absoluteString))
        let result = try await CLIRunner.run([
            "submit", root.absoluteString, "--field", "note=hi", "--header", "X-Api-Key: \(secret)",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(try result.json()["headers"]?["x-api-key"] == nil, "\(result)")
        #expect(!result.stdout.contains(secret))
        let allowed = try await CLIRunner.run([
            "submit", root.absoluteString, "--field", "note=hi", "--header", "X-Api-Key: \(secret)",
            "--allow-origin", other.baseURL.absoluteString,
        ])
        #expect(try allowed.json()["headers"]?["x-api-key"]?.stringValue == secret, "\(allowed)")
    }

    @Test func helpDocumentsTheTablesAndTheFailureLines() async throws {
        let overview = try await CLIRunner.run(["--help"])
        #expect(overview.stdout.contains("halley forms <url>"))
        #expect(overview.stdout.contains("halley submit <url>"))
        #expect(overview.stdout.contains("formValidation"))
        let forms = try await CLIRunner.run(["forms", "--help"])
        #expect(forms.status == 0)
        #expect(forms.stdout.contains("NAME  PROMPT  TYPE  REQUIRED  READONLY  VALUE  CONSTRAINTS  OPTIONS"))
        let submit = try await CLIRunner.run(["help", "submit"])
        #expect(submit.status == 0)
        for fragment in ["--form", "--field", "--allow-origin", "halley: invalid: NAME: MESSAGE (RULE)"] {
            #expect(submit.stdout.contains(fragment), "\(fragment)")
        }
    }
}
