import Foundation
import Halley
import HalleyTestSupport
import Testing

/// Text as servers write it: member names that differ only in Unicode normalisation
/// (`Fixtures/server/text/names.json`) and link tables holding CJK, fullwidth, combining and
/// zero-width characters (`Fixtures/server/text/titles.json`).
@Suite struct CLITextTests {
    /// `Fixtures/server`, read through `--fixtures`, when no HTTP is needed.
    static let serverFixtures = CLIRunner.repositoryRoot.appendingPathComponent("Fixtures/server").path

    static let miserablesPrecomposed = "mis\u{E9}rables"
    static let miserablesDecomposed = "mise\u{301}rables"
    static let resumePrecomposed = "r\u{E9}sum\u{E9}"
    static let resumeDecomposed = "re\u{301}sume\u{301}"

    static func bytes(_ keys: some Sequence<String>) -> [[UInt8]] { keys.map { Array($0.utf8) } }

    /// A server wrote each name twice, precomposed and decomposed, with different values; the
    /// merged output of a traversal over HTTP keeps both, and an include path spelled one way
    /// follows the relation spelled that way.
    @Test(arguments: [(resumePrecomposed, 4), (resumeDecomposed, 2)])
    func mergedOutputKeepsNamesThatDifferOnlyInNormalisation(rel: String, tome: Int) async throws {
        let server = try await TestServer.shared()
        let root = server.linkTo(server.url("/text/names"))
        let result = try await CLIRunner.run(["get", root.absoluteString, "--include", "other.\(rel)", "--compact"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        let other = try #require(try result.json()["other"]?.objectValue, "\(result)")
        #expect(other[Self.miserablesPrecomposed] == 4, "\(result)")
        #expect(other[Self.miserablesDecomposed] == 2, "\(result)")
        let links = try #require(other["_links"]?.objectValue)
        #expect(links[Self.resumePrecomposed]?["href"] == "/text/tome-4")
        #expect(links[Self.resumeDecomposed]?["href"] == "/text/tome-2")
        // The relationship is merged under the include's own spelling, and only it.
        #expect(other[rel]?["tome"] == .int(tome), "\(result)")
        let otherSpelling =
            rel.utf8.elementsEqual(Self.resumePrecomposed.utf8) ? Self.resumeDecomposed : Self.resumePrecomposed
        #expect(other[otherSpelling] == nil, "\(result)")
        // The bytes as the server wrote them, both spellings.
        for name in [Self.miserablesPrecomposed, Self.miserablesDecomposed] {
            #expect(Data(result.stdout.utf8).range(of: Data("\"\(name)\":".utf8)) != nil, "\(result)")
        }
    }

    @Test func linksListsBothRelations() async throws {
        let result = try await CLIRunner.run([
            "links", "--fixtures", Self.serverFixtures, "https://api.example.com/text/names",
        ])
        #expect(result.status == 0, "\(result)")
        let rows = result.stdout.split(separator: "\n").dropFirst().map { line in
            line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        }
        #expect(
            Self.bytes(rows.map { $0.first ?? "" })
                == Self.bytes(["self", Self.resumePrecomposed, Self.resumeDecomposed]))
        #expect(rows.map { $0.count > 2 ? $0[2] : "" } == ["/text/names", "/text/tome-4", "/text/tome-2"])
    }

    /// Columns line up on a terminal: CJK and fullwidth characters take two columns, a
    /// combining accent and a zero-width space none.
    @Test func linksPadsColumnsByDisplayWidth() async throws {
        let result = try await CLIRunner.run([
            "links", "--fixtures", Self.serverFixtures, "https://api.example.com/text/titles",
        ])
        #expect(result.status == 0, "\(result)")
        // Each cell with the columns it takes, as a terminal shows it.
        let table: [[(text: String, columns: Int)]] = [
            [
                ("REL", 3), ("NAME", 4), ("HREF", 4), ("TEMPLATED", 9), ("TITLE", 5), ("DEPRECATION", 11),
                ("SOURCE", 6),
            ],
            [("self", 4), ("-", 1), ("/text/titles", 12), ("no", 2), ("Plain", 5), ("-", 1), ("_links", 6)],
            [
                ("book", 4), ("\u{732B}", 2), ("/books/1", 8), ("no", 2),
                ("\u{543E}\u{8F29}\u{306F}\u{732B}\u{3067}\u{3042}\u{308B}", 14), ("-", 1), ("_links", 6),
            ],
            [("cafe", 4), ("-", 1), ("/cafe", 5), ("no", 2), ("Cafe\u{301}", 4), ("-", 1), ("_links", 6)],
            [
                ("full", 4), ("-", 1), ("/full", 5), ("no", 2), ("\u{FF26}\u{FF35}\u{FF2C}\u{FF2C}", 8), ("-", 1),
                ("_links", 6),
            ],
            [("zero", 4), ("-", 1), ("/zero", 5), ("no", 2), ("a\u{200B}b", 2), ("/gone", 5), ("_links", 6)],
        ]
        let widths = (0..<7).map { column in table.map { $0[column].columns }.max() ?? 0 }
        let expected = table.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1
                    ? cell.text : cell.text + String(repeating: " ", count: widths[column] - cell.columns)
            }.joined(separator: "  ") + "\n"
        }.joined()
        #expect(Array(result.stdout.utf8) == Array(expected.utf8), "\(result)\n--- expected ---\n\(expected)")
    }
}
