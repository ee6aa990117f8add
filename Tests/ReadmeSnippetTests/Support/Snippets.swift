import Foundation

/// The documentation's Swift blocks and their compiled copies in ReadmeSnippetTests (README.md)
/// and ArticleSnippetTests (the DocC catalog).
///
/// A compiled copy is marked in a Swift file of either target:
///
///     // snippet README.md "Quick look"
///     ...the block's lines, at any indentation...
///     // end snippet
///
/// A block may be split over several marked regions with the same document and label (say,
/// declarations at file scope, then statements inside a function); their lines, each region
/// shifted left by its own common indentation, joined in file order, must equal the block.
///
/// Copies of blocks that make async calls sit in `@MainActor` functions: a documented call
/// must compile where an app makes it (a SwiftUI view model, top-level code), not only in a
/// nonisolated function.
enum Snippets {
    /// The repository, located from this file so tests run from any working directory (and
    /// where Tools/MainActorApp compiles it through a link to this target).
    static let repository = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // ReadmeSnippetTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The targets holding compiled copies: this one (README.md), ArticleSnippetTests (the
    /// DocC catalog), the tests of `Examples/ServerSide` for the blocks that need
    /// AsyncHTTPClient or swift-log, and those of `Examples/Combine` for the Combine block
    /// (compiled when CI builds those packages).
    static let targets = [
        "Tests/ReadmeSnippetTests", "Tests/ArticleSnippetTests", "Examples/ServerSide/Tests/HalleyServerSideTests",
        "Examples/Combine/Tests/HalleyCombineTests",
    ].map { repository.appendingPathComponent($0) }

    /// The DocC catalog.
    static let catalog = repository.appendingPathComponent("Sources/Halley/Halley.docc")

    /// The info string of a fenced manifest fragment (lines of a `Package.swift`): Swift, and
    /// highlighted as Swift, but not a block ``blocks(inMarkdown:)`` reads, since it compiles
    /// only against PackageDescription in a manifest. SnippetSyncTests checks what it names.
    static let manifestFence = "```swift Package.swift"

    /// The manifest fragments of a Markdown document (fenced with ``manifestFence``), in order,
    /// without their fences.
    static func manifestFragments(inMarkdown text: String) -> [String] {
        fenced(text, opening: manifestFence)
    }

    /// The fenced ```swift blocks of a Markdown document, in order, without their fences.
    static func blocks(inMarkdown text: String) -> [String] {
        fenced(text, opening: "```swift")
    }

    /// The blocks of `text` whose opening fence line is exactly `opening`.
    private static func fenced(_ text: String, opening: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if var lines = current {
                if line.trimmingCharacters(in: .whitespaces) == "```" {
                    blocks.append(lines.joined(separator: "\n"))
                    current = nil
                } else {
                    lines.append(line)
                    current = lines
                }
            } else if line.trimmingCharacters(in: .whitespaces) == opening {
                current = []
            }
        }
        return blocks
    }

    /// The compiled copies in `files` for one document, by label, each region's lines shifted
    /// left and the regions joined in file order.
    static func copies(of document: String, in files: [URL]) throws -> [String: String] {
        var regions: [String: [[Substring]]] = [:]
        var order: [String] = []
        for file in files.sorted(by: { $0.path < $1.path }) {
            let text = try String(contentsOf: file, encoding: .utf8)
            var open: (label: String, lines: [Substring])?
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if let region = open {
                    if trimmed == "// end snippet" {
                        regions[region.label, default: []].append(region.lines)
                        open = nil
                    } else {
                        open = (region.label, region.lines + [line])
                    }
                } else if let label = label(of: trimmed, document: document) {
                    if regions[label] == nil { order.append(label) }
                    open = (label, [])
                }
            }
        }
        var copies: [String: String] = [:]
        for label in order {
            copies[label] = (regions[label] ?? []).flatMap(dedented).joined(separator: "\n")
        }
        return copies
    }

    /// Every Swift file of the snippet targets.
    static func targetFiles() throws -> [URL] {
        targets.flatMap { target in
            let enumerator = FileManager.default.enumerator(at: target, includingPropertiesForKeys: nil)
            return (enumerator?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }
        }
    }

    /// `Quick look` for the line `// snippet README.md "Quick look"` when `document` is
    /// `README.md`.
    private static func label(of line: String, document: String) -> String? {
        let prefix = "// snippet \(document) \""
        guard line.hasPrefix(prefix), line.hasSuffix("\""), line.count > prefix.count else { return nil }
        return String(line.dropFirst(prefix.count).dropLast())
    }

    /// The lines shifted left by their common indentation (blank lines do not count).
    private static func dedented(_ lines: [Substring]) -> [String] {
        let indents = lines.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix(while: { $0 == " " }).count }
        let indent = indents.min() ?? 0
        return lines.map { $0.allSatisfy(\.isWhitespace) ? "" : String($0.dropFirst(indent)) }
    }
}
