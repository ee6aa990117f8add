import Foundation
import Halley
import HalleyTestSupport
import Testing

/// `halley items` (issue #38): a collection's items across every page, one compact JSON
/// document per line; against the fixture API and the loopback server's linked pages.
@Suite struct CLIItemsTests {
    let api = CLIRunner.api

    /// stdout as one JSON document per line.
    func documents(_ result: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSONValue] {
        #expect(result.stdout.isEmpty || result.stdout.hasSuffix("\n"), sourceLocation: sourceLocation)
        return try result.stdout.split(separator: "\n").map { line in
            #expect(!line.contains("  "), "compact: \(line)", sourceLocation: sourceLocation)
            return try JSONValue(parsing: Data(line.utf8))
        }
    }

    @Test func everyPagesItemsOneLineEach() async throws {
        let result = try await CLIRunner.fixtures("items", ["\(api)/contacts", "--trace"])
        #expect(result.status == 0, "\(result)")
        let items = try documents(result)
        #expect(items.map { $0["name"]?.stringValue } == ["Ada Lovelace", "Grace Hopper", "Alan Turing"], "\(result)")
        #expect(items.allSatisfy(CLIExpect.keysAreSorted))
        let pages = result.stderrLines.filter { $0.hasPrefix("trace: GET ") }.map { $0.split(separator: " ")[2] }
        #expect(pages == ["\(api)/contacts", "\(api)/contacts?page=2"], "\(result)")
    }

    @Test func limitStopsTheItemsAndThePages() async throws {
        let result = try await CLIRunner.fixtures("items", ["\(api)/contacts", "--limit", "2", "--trace"])
        #expect(result.status == 0, "\(result)")
        #expect(try documents(result).map { $0["id"]?.intValue } == [1, 2])
        #expect(result.stderrLines.filter { $0.hasPrefix("trace: GET ") }.count == 1, "no second page: \(result)")
    }

    @Test func includesApplyToEveryItem() async throws {
        // The fixture pages embed summaries with no links: the include is looked for in each.
        let result = try await CLIRunner.fixtures("items", ["\(api)/contacts", "--include", "website"])
        #expect(result.status == 0, "\(result)")
        #expect(try documents(result).count == 3)
        // One note for the include path, naming whichever item's traversal reported first:
        // the items of a page are read concurrently.
        let notes = (1...3).map {
            "halley: note: include path \"website\": resource \(api)/contacts/\($0) has no \"website\" relation; "
                + "left out there"
        }
        #expect(result.stderrLines.count == 1 && notes.contains(result.stderrLines[0]), "\(result)")
    }

    @Test func linkedItemsOverHTTPAcrossPages() async throws {
        let server = try await TestServer.shared()
        let tag = "items" + UUID().uuidString.prefix(8)
        let second = server.url("/linked-page?count=2&tag=\(tag)")
        let first = server.url("/linked-page?count=3&tag=\(tag)&next=" + TestServer.queryValue(second.absoluteString))
        let all = try await CLIRunner.run(["items", first.absoluteString])
        #expect(all.status == 0, "\(all)")
        #expect(try documents(all).map { $0["n"]?.intValue } == [0, 1, 2, 0, 1], "\(all)")

        let four = try await CLIRunner.run(["items", first.absoluteString, "--limit", "4"])
        #expect(try documents(four).map { $0["n"]?.intValue } == [0, 1, 2, 0], "\(four)")
    }

    @Test func deadlineBoundsTheWholeEnumeration() async throws {
        // The first page answers at once; the second takes 5 s, past the 1 s the enumeration has.
        let server = try await TestServer.shared()
        let slow = server.url("/slow?ms=5000")
        let first = server.url("/linked-page?count=2&next=" + TestServer.queryValue(slow.absoluteString))
        let result = try await CLIRunner.run(["items", first.absoluteString, "--deadline", "1"])
        #expect(result.status == 4, "\(result)")
        #expect(try documents(result).map { $0["n"]?.intValue } == [0, 1], "what arrived in time is printed")
        #expect(
            result.stderrLines.last?.hasPrefix("halley: the --deadline of ") == true
                && result.stderrLines.last?.hasSuffix(" passed after 2 items") == true, "\(result)")
    }

    @Test func aResourceWithoutItemsPrintsNothing() async throws {
        let result = try await CLIRunner.fixtures("items", ["\(api)/contacts/1"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(result)")
    }

    @Test func mistakesAreUsageErrors() async throws {
        for (arguments, fragment) in [
            (["items"], "missing URL"),
            (["items", "\(api)/contacts", "--limit", "0"], "--limit \"0\" is not a positive integer"),
            (["items", "\(api)/contacts", "--limit"], "--limit"),
            (["items", "\(api)/contacts", "--compact"], "unknown option --compact"),
        ] {
            let result = try await CLIRunner.run(arguments)
            CLIExpect.failure(result, status: 2, containing: [fragment, "halley items --help"])
        }
    }

    @Test func itemsHasItsOwnHelpAndIsInTheOverview() async throws {
        let help = try await CLIRunner.run(["items", "--help"])
        #expect(help.status == 0, "\(help)")
        for option in ["--limit N", "--include", "--strict", "one compact JSON document per line"] {
            #expect(help.stdout.contains(option), "\(option) missing: \(help)")
        }
        let overview = try await CLIRunner.run(["--help"])
        #expect(overview.stdout.contains("halley items <url>"), "\(overview)")
    }
}
