import Foundation
import Halley

/// `halley links`: fetch one document and print its links as a table.
struct LinksCommand {
    /// The checked command line.
    let arguments: LinksArguments

    /// The table's columns; documented in `halley links --help`.
    static let header = ["REL", "NAME", "HREF", "TEMPLATED", "TITLE", "DEPRECATION", "SOURCE"]

    /// Fetches the document, prints the table, lists malformed links on stderr.
    ///
    /// - Returns: ``ExitCode/success``, also when some links are malformed (they are listed).
    func run(console: Console) async throws -> ExitCode {
        let reporter = TraversalReporter(arguments.request, console: console)
        let session = try Session(arguments.request, observer: reporter.observe)
        let resource = try await session.manager.document(at: session.rootURL, options: session.callOptions())
        console.out(TextTable.render(header: Self.header, rows: Self.rows(of: resource.links)))
        for problem in resource.problems where !FormsCommand.isTemplateProblem(problem) {
            console.error("warning: malformed link skipped: \(problem.description)")
        }
        return .success
    }

    /// One row per link, in document order; `-` marks an absent value. Hrefs are shown as
    /// written, since templated ones cannot be resolved without variables; those of the `Link`
    /// header are absolute, as the library resolved them against the response's URL. SOURCE
    /// says where a link came from: `_links`, or `header` for the `Link` header field.
    static func rows(of links: Links) -> [[String]] {
        links.relations.flatMap { relation in
            let firstFromHeader = relation.links.count - relation.headerLinkCount
            return relation.links.enumerated().map { index, link in
                [
                    relation.rel.rawValue, link.name ?? "-", link.href, link.isTemplated ? "yes" : "no",
                    link.title ?? "-", link.deprecation ?? "-", index >= firstFromHeader ? "header" : "_links",
                ]
            }
        }
    }
}
