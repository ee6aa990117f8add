import Foundation
import Halley

/// The manager, the call options and the root URL a command uses, built from the command
/// line.
struct Session {
    /// Sends requests through the network or the fixture files.
    let manager: ResourceManager
    /// Variables, headers, trusted origins, concurrency, preference and observer.
    let options: CallOptions
    /// The root, with its template expanded.
    let rootURL: URL
    /// `--deadline`: the budget of the whole command, shared by its calls.
    private let deadline: Duration?
    /// When the command's first call started, for what remains of ``deadline``.
    private let started = LockedValue<ContinuousClock.Instant?>(nil)

    /// Builds the session.
    ///
    /// - Parameters:
    ///   - request: The shared request options.
    ///   - maxConcurrency: `--max-concurrency`; the library default when `nil`.
    ///   - preference: Embedded first (default) or links first.
    ///   - observer: Receives the traversal's events.
    ///   - acceptsForms: Ask for HAL-FORMS (`forms`, `submit`).
    ///   - strictIncludes: `--strict`: an include a resource lacks fails the command.
    /// - Throws: ``URITemplateError`` for a bad root template, ``ToolError`` for a root that
    ///   is not an absolute URL (both exit 3).
    init(
        _ request: RequestArguments, maxConcurrency: Int? = nil,
        preference: CallOptions.Preference = .embedded, observer: TraversalObserver? = nil,
        acceptsForms: Bool = false, strictIncludes: Bool = false
    ) throws {
        rootURL = try Session.rootURL(request.target, variables: request.variables)

        var options = CallOptions()
        options.variables = request.variables
        options.headers = request.headers
        // Every user header may carry a secret (API keys rarely travel in `Authorization`),
        // so all of them are credential headers: sent to the root's origin and the
        // --allow-origin ones only, never to hosts a document merely links to.
        let headerNames = Set(request.headers.map(\.name))
        options.credentialHeaders = headerNames
        options.allowedOrigins = request.allowedOrigins
        options.maxConcurrency = maxConcurrency
        options.preference = preference
        options.observer = observer
        options.acceptsForms = acceptsForms
        options.strictIncludes = strictIncludes
        options.requestTimeout = request.policy.timeout
        options.retryPolicy = request.policy.retries.map { RetryPolicy(maxAttempts: $0 + 1) }
        options.deadline = request.policy.deadline
        if request.verbose || request.showHeaders {
            // -v and -i: ask the requester how each response travelled (libcurl measures it);
            // -i names the response's protocol from it.
            options.configureRequest = { request in request.collectsMetrics = true }
        }
        deadline = request.policy.deadline
        self.options = options

        let requester: any ResourceRequester & Sendable
        if let directory = request.fixtures {
            requester = FileRequester(directory: directory)
        } else {
            // libcurl on Linux (URLSession when it cannot be loaded), URLSession on Apple
            // platforms. Each request carries the call's credential names, so a redirect that
            // leaves the origin strips them whichever requester follows it.
            let transport = request.transport
            if transport.httpVersion != .automatic {
                // Only libcurl lets the HTTP version be chosen.
                do {
                    requester = try CurlRequester(
                        tls: transport.tls, proxy: transport.proxy, httpVersion: transport.httpVersion)
                } catch {
                    throw ToolError(
                        exitCode: .usage,
                        message: "--http1.1 and --http2 need libcurl, which cannot be used here: \(error.reason)")
                }
            } else if transport.tls.clientIdentity != nil,
                let curl = try? CurlRequester(tls: transport.tls, proxy: transport.proxy)
            {
                // --cert: libcurl, as on Linux, also on macOS, where URLSession (the default there)
                // takes client identities from the keychain only and the system's libcurl takes PEM
                // (with LibreSSL; with Secure Transport every request names the setting it cannot
                // honour). Without libcurl, URLSession's own refusal names the setting.
                requester = curl
            } else {
                requester = DefaultRequester.make(tls: transport.tls, proxy: transport.proxy)
            }
        }
        // The manager's header, so it goes to every origin: a `--header User-Agent: ...` is
        // the call's, which wins (on the origins the tool's headers go to).
        var configuration = ResourceManager.Configuration()
        configuration.headers["User-Agent"] = HelpText.userAgent
        manager = ResourceManager(requester: requester, configuration: configuration)
    }

    /// The options for the command's next call: ``options`` with what remains of `--deadline`,
    /// so a command that makes two calls (fetch, then send) stays within one budget.
    ///
    /// - Throws: ``HalleyError`` with code `.timeout` when nothing remains (exit 4).
    func callOptions() throws -> CallOptions {
        guard let deadline else { return options }
        let now = ContinuousClock.now
        // The first call gets the whole budget, so its timeout names the --deadline as given.
        guard
            let first = started.withLock({ started in
                started
                    ?? {
                        started = now
                        return nil
                    }()
            })
        else {
            return options
        }
        // Whole milliseconds, as --deadline itself, so messages show a readable budget.
        let remaining = Duration.milliseconds((deadline - (now - first)) / .milliseconds(1))
        guard remaining > .zero else {
            throw HalleyError(
                code: .timeout, message: "the --deadline of \(deadline) passed before the command's next request")
        }
        var options = options
        options.deadline = remaining
        return options
    }

    /// The root URL: `target` itself, or its expansion when it holds template braces.
    ///
    /// The library can expand a root template itself (`resource(from: String, ...)`), but
    /// `traverse` and `document(at:)` take a URL only, so the tool expands once, the same
    /// way for every command.
    ///
    /// As curl does, a URL without `://` means `http://` (`localhost:8080/x` is
    /// `http://localhost:8080/x`, not a URL of the scheme `localhost`). A scheme the requester
    /// does not take is left for the library to name.
    static func rootURL(_ target: String, variables: [String: TemplateValue]) throws -> URL {
        var text = target
        if target.contains("{") || target.contains("}") {
            text = try URITemplate(target).expand(variables)
        }
        // After the expansion: a template may give the scheme (`{+base}/x`).
        let given = text
        if !text.contains("://"), !text.isEmpty, !text.hasPrefix("/") { text = "http://" + text }
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty,
            !["http", "https"].contains(scheme.lowercased()) || url.host?.isEmpty == false
        else {
            throw ToolError(
                exitCode: .invalidInput,
                message: "\"\(given)\" is not an absolute URL (expected e.g. https://api.example.com/)")
        }
        return url
    }
}
