import Foundation
import Halley

/// `halley items`: a collection's items across every page, through the library's paging
/// engine (``PagedItems``), printed as they arrive, one compact JSON document per line.
struct ItemsCommand {
    /// The checked command line.
    let arguments: ItemsArguments

    /// Enumerates the pages and prints each item.
    ///
    /// - Returns: ``ExitCode/success``, also for a resource without items (nothing printed).
    /// - Throws: ``HalleyError`` (a page or item that fails, `.paginationCycle`, `.timeout`
    ///   past `--deadline`), which ``ErrorReport`` maps to exit codes.
    func run(console: Console) async throws -> ExitCode {
        let (reporter, session) = try arguments.traversal.start(console: console)
        var options = try session.callOptions()
        // Each page is a call of its own: --deadline bounds the whole enumeration instead.
        let deadline = options.deadline
        options.deadline = nil
        var items = session.manager.items(
            JSONValue.self, from: session.rootURL, includes: arguments.traversal.libraryIncludes, options: options)
        if let limit = arguments.limit { items = items.limited(toItems: limit) }
        let enumeration = items
        let printed = LockedValue(0)
        do {
            try await Self.within(deadline, printed: printed) {
                for try await item in enumeration {
                    let line = String(decoding: item.serialized(options: [.sortedKeys]), as: UTF8.self) + "\n"
                    // Nobody reads on (`halley items … | head -1`): no more pages for nobody.
                    guard console.out(line) else { break }
                    printed.withLock { $0 += 1 }
                }
            }
        } catch {
            reporter.finish()
            throw error
        }
        reporter.finish()
        return .success
    }

    /// Runs `body`, failing with a `.timeout` (exit status 4) when `deadline` passes first.
    private static func within(
        _ deadline: Duration?, printed: LockedValue<Int>, _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        guard let deadline else { return try await body() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: deadline)
                let count = printed.get()
                throw HalleyError(
                    code: .timeout,
                    message: "the --deadline of \(deadline) passed after \(count) item\(count == 1 ? "" : "s")")
            }
            try await group.next()
            group.cancelAll()
        }
    }
}
