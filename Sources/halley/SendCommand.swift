import Foundation
import Halley

/// `halley send`: send an action (POST, PUT, PATCH, DELETE, ...) to a URL, or to the target of
/// a relation of the resource at that URL, and print the response.
struct SendCommand {
    /// The checked command line.
    let arguments: SendArguments

    /// Sends the action, prints the response body on stdout and its status on stderr.
    ///
    /// - Returns: ``ExitCode/success`` for a 2xx answer.
    /// - Throws: ``HalleyError`` for anything else (`.http` for a non-2xx answer, `.missingRelation`
    ///   for a `--rel` the resource lacks, `.timeout`, ...), which ``ErrorReport`` maps to exit codes.
    func run(console: Console) async throws -> ExitCode {
        let reporter = TraversalReporter(arguments.request, console: console)
        let session = try Session(arguments.request, observer: reporter.observe)
        let method = arguments.method
        if let retries = arguments.request.policy.retries, retries > 0,
            session.options.retryPolicy?.retryableMethods.contains(method) == false
        {
            // The library never repeats a request that may not be idempotent: a POST that
            // timed out may have created something already.
            let fetch = arguments.rel == nil ? "" : " (only the GET of the resource is retried)"
            console.error("note: --retries does not apply to \(method.rawValue), which is not idempotent\(fetch)")
        }
        let body = Self.body(arguments.data, headers: arguments.request.headers)
        let response: ActionResponse
        if let rel = arguments.rel {
            let resource = try await session.manager.document(at: session.rootURL, options: session.callOptions())
            response = try await session.manager.send(
                method, rel: rel, of: resource, body: body, options: session.callOptions())
        } else {
            response = try await session.manager.send(
                method, to: session.rootURL, body: body, options: session.callOptions())
        }
        console.error("note: \(method.rawValue) " + ResponsePrinter.outcome(of: response))
        ResponsePrinter.printBody(of: response, console: console)
        return .success
    }

    /// The `--data` bytes as given, as `application/json` unless a `--header` names another
    /// `Content-Type` (say, `application/merge-patch+json`).
    static func body(_ data: Data?, headers: HeaderFields) -> RequestBody {
        guard let data else { return .none }
        return .data(data, contentType: headers["Content-Type"] ?? "application/json")
    }
}
