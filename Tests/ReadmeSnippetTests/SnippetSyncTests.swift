import Foundation
import Testing

/// Every Swift block of README.md and of the DocC catalog is compiled, by this target, by
/// ArticleSnippetTests, or (for blocks that need AsyncHTTPClient or swift-log, or Combine) by
/// the tests of `Examples/ServerSide` or `Examples/Combine`: each must have a marked copy
/// there, equal line for line (see ``Snippets``), and every marked copy must still be in its
/// document. Edit a block and its copy together. A manifest fragment (fenced
/// ```` ```swift Package.swift ````) is not compiled; what it names is checked instead.
@Suite struct SnippetSyncTests {
    /// The catalog's documents whose blocks are not compiled here, and why.
    static let uncompiledDocuments: [String: String] = [
        // Its blocks are the original Halley's Combine code (not on Linux) beside ours; the
        // calls it maps are compiled by HalleyMigrationTests.
        "MigratingFromHalley.md": "Combine"
    ]

    static func documents() throws -> [(name: String, url: URL)] {
        let articles = try FileManager.default.contentsOfDirectory(
            at: Snippets.catalog, includingPropertiesForKeys: nil
        )
        .filter { $0.pathExtension == "md" && uncompiledDocuments[$0.lastPathComponent] == nil }
        .sorted { $0.lastPathComponent < $1.lastPathComponent }
        .map { (name: $0.lastPathComponent, url: $0) }
        return [("README.md", Snippets.repository.appendingPathComponent("README.md"))] + articles
    }

    @Test func everyBlockOfEveryDocumentIsCompiledVerbatim() throws {
        let files = try Snippets.targetFiles()
        #expect(!files.isEmpty)
        var documentsWithBlocks = 0
        for document in try Self.documents() {
            let text = try String(contentsOf: document.url, encoding: .utf8)
            let blocks = Snippets.blocks(inMarkdown: text).map(Self.normalized)
            let copies = try Snippets.copies(of: document.name, in: files)
            if !blocks.isEmpty { documentsWithBlocks += 1 }
            for (index, block) in blocks.enumerated() where !copies.values.contains(block) {
                Issue.record(
                    """
                    \(document.name): Swift block \(index + 1) has no compiled copy in Tests/ReadmeSnippetTests, \
                    Tests/ArticleSnippetTests, Examples/ServerSide/Tests or Examples/Combine/Tests. \
                    \(Self.closest(to: block, among: copies))
                    """)
            }
            for (label, copy) in copies.sorted(by: { $0.key < $1.key }) where !blocks.contains(copy) {
                Issue.record("\(document.name): the copy \"\(label)\" is no longer a Swift block of the document")
            }
        }
        #expect(documentsWithBlocks > 1, "README.md and the articles have Swift blocks")
    }

    /// README's manifest fragment adds the package by URL and names its products by the
    /// package's identity, the URL's last path component: SwiftPM rejects any other name
    /// (`unknown package 'Halley' in dependencies of target …`). So must every
    /// `.product(name:package:)` of this package that README or an article shows.
    @Test func theManifestFragmentNamesProductsByThePackageIdentityOfItsURL() throws {
        let readme = try String(contentsOf: Snippets.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let fragment = try #require(Snippets.manifestFragments(inMarkdown: readme).first, "README shows how to add it")
        let url = try #require(Self.captures(#"\.package\(url: "([^"]+)", from: "([0-9.]+)"\)"#, in: fragment).first)
        let identity = url[0].split(separator: "/").last.map { String($0.lowercased().replacing(".git", with: "")) }
        #expect(identity == "halley-swift")
        for document in try Self.documents() {
            let text = try String(contentsOf: document.url, encoding: .utf8)
            for product in Self.captures(#"\.product\(name: "(Halley[A-Za-z]*)", package: "([^"]+)"\)"#, in: text) {
                #expect(product[1] == identity, "\(document.name): .product(name: \"\(product[0])\", package: …)")
            }
        }
    }

    /// The capture groups of every match of `pattern` in `text`.
    static func captures(_ pattern: String, in text: String) -> [[String]] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (1..<match.numberOfRanges).map { Range(match.range(at: $0), in: text).map { String(text[$0]) } ?? "" }
        }
    }

    @Test func theExtractorReadsFencesAndSplitRegions() throws {
        let markdown = "Text\n\n```swift\nlet a = 1\n\nlet b = 2\n```\n\n```sh\nls\n```\n  ```swift\nf()\n  ```\n"
        #expect(Snippets.blocks(inMarkdown: markdown) == ["let a = 1\n\nlet b = 2", "f()"])
        let manifest = "```swift Package.swift\ndependencies: []\n```\n```swift\ng()\n```\n"
        #expect(Snippets.blocks(inMarkdown: manifest) == ["g()"], "a manifest fragment is not compiled")
        #expect(Snippets.manifestFragments(inMarkdown: manifest) == ["dependencies: []"])

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("snippet-\(UUID().uuidString).swift")
        defer { try? FileManager.default.removeItem(at: file) }
        let swift = """
            // snippet Doc.md "two"
            struct A {}

            // end snippet
            func f() {
                // snippet Doc.md "two"
                let a = A()
                    .self
                // end snippet
                _ = a
            }
            """
        try swift.write(to: file, atomically: true, encoding: .utf8)
        #expect(try Snippets.copies(of: "Doc.md", in: [file]) == ["two": "struct A {}\n\nlet a = A()\n    .self"])
        #expect(try Snippets.copies(of: "Other.md", in: [file]).isEmpty)
    }

    /// Whitespace-only lines as empty lines, as the copies are compared.
    static func normalized(_ block: String) -> String {
        block.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.allSatisfy(\.isWhitespace) ? "" : String($0) }
            .joined(separator: "\n")
    }

    /// Where the nearest copy first differs from `block`, to make a failure quick to fix.
    static func closest(to block: String, among copies: [String: String]) -> String {
        let blockLines = block.split(separator: "\n", omittingEmptySubsequences: false)
        let scored = copies.map { label, copy in
            let lines = copy.split(separator: "\n", omittingEmptySubsequences: false)
            return (label, lines, Set(lines).intersection(blockLines).count)
        }
        guard let (label, lines, score) = scored.max(by: { $0.2 < $1.2 }), score > 0 else {
            return "Its first line: \(blockLines.first ?? "")"
        }
        for (number, (expected, actual)) in zip(blockLines, lines).enumerated() where expected != actual {
            return
                "Nearest copy \"\(label)\" differs at line \(number + 1): document has \"\(expected)\", copy has \"\(actual)\""
        }
        return "Nearest copy \"\(label)\" has \(lines.count) lines, the block \(blockLines.count)"
    }
}
