import Foundation
import Halley

/// The observer of a command's calls: reports deprecated links, missing relations and retries
/// on stderr as they happen, prints a trace line per finished request with `--trace` (`get`),
/// and keeps the finished requests for the waterfall.
///
/// The library calls ``observe(_:)`` from many tasks at once.
final class TraversalReporter: Sendable {
    private struct State {
        var records: [RequestRecord] = []
        var notedPaths: Set<String> = []
    }

    private let state = LockedValue(State())
    private let tracing: Bool
    private let verbose: Bool
    private let showHeaders: Bool
    private let console: Console

    /// Creates a reporter; `tracing` turns on the per-request lines, `verbose` adds each
    /// request's connection line and its `> ` request lines to them, `showHeaders` prints each response's head.
    init(tracing: Bool, verbose: Bool = false, showHeaders: Bool = false, console: Console) {
        self.tracing = tracing || verbose
        self.verbose = verbose
        self.showHeaders = showHeaders
        self.console = console
    }

    /// A reporter for a command's `-v` and `-i`; `tracing` is `get --trace`.
    convenience init(_ request: RequestArguments, tracing: Bool = false, console: Console) {
        self.init(tracing: tracing, verbose: request.verbose, showHeaders: request.showHeaders, console: console)
    }

    /// The library's observer: quick, thread-safe, prints whole lines.
    func observe(_ event: HalleyEvent) {
        switch event {
        case .requestFinished(let record):
            state.withLock { $0.records.append(record) }
            // One write per request, so a request's lines stay together under concurrency.
            var lines: [String] = []
            if tracing { lines.append(TraceFormat.line(record)) }
            if verbose {
                lines.append(TraceFormat.connectionLine(record))
                lines += TraceFormat.requestLines(record)
            }
            if showHeaders { lines += TraceFormat.headerLines(record) }
            console.err(lines: lines)
        case .deprecatedLinkFollowed(let includePath, let url, let deprecation):
            // HAL draft 5.4: clients SHOULD warn when following a deprecated link.
            let path = includePath.map { " (include path \"\($0)\")" } ?? ""
            console.error("warning: followed deprecated link \(url.absoluteString)\(path); see \(deprecation)")
        case .relationMissing(let includePath, let rel, let url):
            // Once per include path: a to-many include would otherwise repeat it per item.
            if noteOnce("missing", includePath) {
                let resource = url.map { "resource \($0.absoluteString)" } ?? "a resource"
                console.error(
                    "note: include path \"\(includePath)\": \(resource) has no \"\(rel.rawValue)\" relation; "
                        + "left out there")
            }
        case .resultKeyTaken(let includePath, let key):
            if noteOnce("taken", includePath) {
                console.error(
                    "note: include path \"\(includePath)\": \"\(key)\" is already an attribute; "
                        + "the relationship is under _embedded.\(key)")
            }
        case .responseHeaderIgnored:
            // A `Location` the tool does not follow is worth knowing about when scripting.
            console.error("note: \(event)")
        case .retrying:
            // `--retries`: each retry says why, so a slow run is explained as it happens.
            console.error("note: \(event)")
        case .fallbackUsed(let url, let error):
            // The tool sets no fallback today; if a configuration ever does, say so, since
            // the output then holds a substitute for what the server answered.
            console.error("warning: used a fallback response for \(url.absoluteString): \(error.message)")
        default:
            // `.requestStarted`, `.embeddedUsed`, and cases later library versions add:
            // `default` rather than `@unknown default` keeps new cases from warning, since the
            // library is built from source and its enums are not frozen.
            break
        }
    }

    /// The finished requests so far, in the order they finished.
    var finishedRequests: [RequestRecord] {
        state.get().records
    }

    /// Prints the waterfall when tracing; call once the traversal has ended (well or not).
    func finish() {
        guard tracing else { return }
        console.err(lines: TraceFormat.waterfall(finishedRequests))
    }

    /// Whether this kind of note for this include path is new (and marks it as printed).
    private func noteOnce(_ kind: String, _ includePath: String) -> Bool {
        state.withLock { $0.notedPaths.insert(kind + " " + includePath).inserted }
    }
}
