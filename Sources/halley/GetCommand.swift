import Foundation
import Halley

/// `halley get`: fetch a resource, follow the includes, print the merged document.
struct GetCommand {
    /// The checked command line.
    let arguments: GetArguments

    /// Runs the traversal and prints the result.
    ///
    /// - Returns: ``ExitCode/success``; failures are thrown.
    /// - Throws: ``HalleyError`` and the other errors ``ErrorReport`` maps to exit codes.
    func run(console: Console) async throws -> ExitCode {
        let (reporter, session) = try arguments.traversal.start(console: console)
        let includes = arguments.traversal.libraryIncludes

        let document: JSONValue
        do {
            if arguments.allowPartial {
                let result = try await session.manager.traverse(
                    session.rootURL, includes: includes,
                    options: session.callOptions())
                reporter.finish()
                for failure in result.failures {
                    console.error("partial: " + Self.describe(failure))
                }
                document = result.document
            } else {
                document = try await session.manager.resource(
                    from: session.rootURL, includes: includes,
                    options: session.callOptions())
                reporter.finish()
            }
        } catch {
            // The trace matters most when something went wrong: show what did run.
            reporter.finish()
            throw error
        }

        let options: JSONWritingOptions = arguments.compact ? [.sortedKeys] : [.prettyPrinted, .sortedKeys]
        console.out(String(decoding: document.serialized(options: options), as: UTF8.self) + "\n")
        return .success
    }

    /// `include path "P", URL U: cause`, for a relationship left out by `--allow-partial`.
    static func describe(_ failure: HalleyError) -> String {
        let path = failure.includePath ?? "(root)"
        let url = failure.url?.absoluteString ?? "(none)"
        return "include path \"\(path)\", URL \(url): \(failure.message)"
    }
}
