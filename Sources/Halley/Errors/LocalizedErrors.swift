import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// What an app may show its user for each public error, worded in this one file.
//
// `description` is the developer's sentence (URLs, include paths, JSON paths, a body's
// excerpt) for logs and the `halley` tool. `LocalizedError`'s parts are for the people using
// an app, and `localizedDescription`, which `Text(error.localizedDescription)` shows, is
// `errorDescription`:
//
// - `errorDescription`: one short sentence saying what failed and the host (with its port when
//   the URL names one), never a path, a query, JSON or a raw body;
// - `failureReason`: why, in the same words;
// - `recoverySuggestion`: what the user can do, when there is something.
//
// Text from elsewhere (a server's message, a transport's words) is shown only through
// `ErrorWording.shown(_:)`: one line, short, with no URL, JSON or markup in it.

/// The three parts of an error an app shows, as ``ErrorWording`` words them.
struct ErrorWords: Sendable, Hashable {
    /// What failed, and where: `errorDescription`.
    var description: String
    /// Why: `failureReason`.
    var reason: String?
    /// What to do: `recoverySuggestion`.
    var suggestion: String?
}

/// An error worded for people by this file; `url` is the URL of the call it failed in, for
/// errors that do not hold one.
protocol UserFacingError: Error {
    /// The error in words for the people using an app.
    func words(at url: URL?) -> ErrorWords
}

/// The rules every public error's user-facing words follow.
enum ErrorWording {
    /// The most characters of text from elsewhere (a server's message) shown.
    static let shownLength = 160

    /// Where a request went, as a person would say it: the host, with the port when the URL
    /// names one (`api.example.com`, `127.0.0.1:8080`); never the path or the query.
    static func site(_ url: URL?) -> String? {
        guard let url, let host = url.host, !host.isEmpty else { return nil }
        guard let port = url.port else { return host }
        return host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// `text` with its first letter capitalised and a final period.
    static func sentence(_ text: String) -> String {
        guard let first = text.first else { return text }
        let capitalised = first.uppercased() + text.dropFirst()
        return [".", "!", "?", "…"].contains { capitalised.hasSuffix($0) } ? capitalised : capitalised + "."
    }

    /// Text from a server or a transport, fit to show: on one line, cut to ``shownLength``;
    /// `nil` when it is empty or holds a URL, JSON or markup, which a person cannot use.
    static func shown(_ text: String) -> String? {
        var line = HTTPError.oneLine(text)
        while let last = line.last, last == "." || last == " " { line.removeLast() }
        guard !line.isEmpty, !line.contains("://"), !line.contains(where: { "{}<>".contains($0) }) else { return nil }
        guard line.count > shownLength else { return line }
        return String(line.prefix(shownLength)).trimmingCharacters(in: .whitespaces) + "…"
    }

    /// The media type of a `Content-Type` value, lowercased, without parameters.
    static func mediaType(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return type.isEmpty ? nil : type.lowercased()
    }

    /// Whether a media type is JSON (`application/json`, any `+json`).
    static func isJSON(_ mediaType: String) -> Bool {
        mediaType == "application/json" || mediaType.hasSuffix("+json")
    }

    /// The message of a JSON error body: RFC 9457's `detail` or `title`; FastAPI's `detail`
    /// (a string, or a list of objects: the first one's `msg`); Spring's and many others'
    /// `message`; `error` (a string, or an object with a `message`); JSON:API's `errors`
    /// (the first one's `detail` or `title`); OAuth's `error_description`. `nil` for a body
    /// that is not a JSON object or has none of these, and for one that only says the status
    /// phrase: the raw JSON is never shown.
    static func serverMessage(in body: Data, contentType: String?, reason: String) -> String? {
        if let type = mediaType(contentType), !isJSON(type), type != "text/plain" { return nil }
        let whitespace: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]
        guard body.count <= 64 * 1024, body.first(where: { !whitespace.contains($0) }) == UInt8(ascii: "{"),
            case .object(let object)? = try? JSONValue(parsing: body)
        else { return nil }
        for key in ["detail", "message", "title", "error", "errors", "error_description"] {
            guard let text = message(in: object[key]) else { continue }
            if text.caseInsensitiveCompare(reason) == .orderedSame { return nil }
            return text
        }
        return nil
    }

    /// A message held by `value`: a string, a list's first message, an object's message.
    private static func message(in value: JSONValue?, depth: Int = 0) -> String? {
        switch value {
        case .string(let text)?:
            return shown(text)
        case .array(let items)? where depth < 2:
            return items.first.flatMap { message(in: $0, depth: depth + 1) }
        case .object(let object)? where depth < 2:
            for key in ["msg", "message", "detail", "title"] {
                if let text = message(in: object[key], depth: depth + 1) { return text }
            }
            return nil
        default:
            return nil
        }
    }

    /// `The request to <site>` or `The request`, to start a sentence.
    static func theRequest(to url: URL?) -> String {
        site(url).map { "The request to \($0)" } ?? "The request"
    }

    /// `The reply from <site>` or `The reply`, to start a sentence.
    static func theReply(from url: URL?) -> String {
        site(url).map { "The reply from \($0)" } ?? "The reply"
    }

    /// `The server <site>` or `The server`, to start a sentence.
    static func theServer(_ url: URL?) -> String {
        site(url).map { "The server \($0)" } ?? "The server"
    }

    /// What to do after a status, when the user can do something.
    static func suggestion(forStatus status: Int) -> String? {
        switch status {
        case 401: return "Sign in and try again."
        case 403: return "Check that your account may do this, then try again."
        case 404, 410: return "It may have been moved or deleted; reload and try again."
        case 409, 412: return "Reload and try again."
        case 400, 422: return "Check the values you entered and try again."
        case 408, 425, 429, 502, 503, 504: return "Wait a moment and try again."
        case 500...599: return "Try again later."
        default: return nil
        }
    }

    /// The names of a list, as people say them: `a`, `a and b`, `a, b and c`.
    static func spokenList(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }
}

// MARK: - The errors' words

extension HalleyError: UserFacingError {
    /// The underlying error's words when it has some (an HTTP status, a transport failure, a
    /// document, a form's values); else the code's.
    func words(at callURL: URL?) -> ErrorWords {
        let url = self.url ?? callURL
        if let underlying = underlying as? any UserFacingError { return underlying.words(at: url) }
        let request = ErrorWording.theRequest(to: url)
        let reply = ErrorWording.theReply(from: url)
        let data = ErrorWording.site(url).map { "The data from \($0)" } ?? "The data"
        let link = ErrorWording.site(url).map { "A link from \($0)" } ?? "A link"
        let tryAgain = "Check your network connection and try again."
        switch code {
        case .http:
            return ErrorWords(description: "\(request) failed.", reason: "The server refused it.", suggestion: nil)
        case .transport:
            return ErrorWords(
                description: "\(request) failed.", reason: "No reply came from the server.", suggestion: tryAgain)
        case .timeout:
            return ErrorWords(
                description: "\(ErrorWording.theServer(url)) did not answer in time.",
                reason: "The time allowed ran out.", suggestion: tryAgain)
        case .invalidDocument, .malformedLink:
            return ErrorWords(
                description: "\(reply) is not a valid HAL document.",
                reason: "It is not in the form the app expects.", suggestion: nil)
        case .invalidTemplate:
            return ErrorWords(
                description: "\(link) could not be followed.", reason: "Its address template is malformed.",
                suggestion: nil)
        case .invalidURL:
            return ErrorWords(
                description: "\(link) could not be followed.", reason: "Its address is not a valid URL.",
                suggestion: nil)
        case .unsupportedScheme:
            return ErrorWords(
                description: "\(link) could not be followed.",
                reason: "Its address uses a scheme the app does not fetch.", suggestion: nil)
        case .ambiguousRelation, .missingRelation:
            return ErrorWords(
                description: "\(data) does not link what the app needs.",
                reason: code == .missingRelation
                    ? "A relation the app follows is missing." : "A relation has several links and none was chosen.",
                suggestion: nil)
        case .invalidInclude:
            return ErrorWords(
                description: "\(request) could not be made.", reason: "An include path of the app is malformed.",
                suggestion: nil)
        case .limitExceeded:
            return ErrorWords(
                description: "\(request) went past a limit of the app.",
                reason: "It needed more requests, depth or bytes than the app allows.", suggestion: nil)
        case .decoding:
            return ErrorWords(
                description: "\(data) could not be read.", reason: "It is not in the format the app expects.",
                suggestion: nil)
        case .validation:
            return ErrorWords(
                description: "\(reply) was not accepted.", reason: "It failed one of the app's checks.",
                suggestion: nil)
        case .paginationCycle:
            return ErrorWords(
                description: "The list from \(ErrorWording.site(url) ?? "the server") could not be read to the end.",
                reason: "Its pages link back to a page already read.", suggestion: nil)
        case .pageMismatch:
            return ErrorWords(
                description: "The list from \(ErrorWording.site(url) ?? "the server") could not be read.",
                reason: "The server answered with another page than the one asked for.", suggestion: nil)
        case .missingForm:
            return ErrorWords(
                description: "This action is not available from \(ErrorWording.site(url) ?? "the server").",
                reason: "The resource offers no form for it.", suggestion: "Reload and try again.")
        case .unsupportedContentType:
            return ErrorWords(
                description: "The form from \(ErrorWording.site(url) ?? "the server") cannot be sent.",
                reason: "It asks for a content type the app cannot write.", suggestion: nil)
        case .missingValidator:
            return ErrorWords(
                description: "The change to \(ErrorWording.site(url) ?? "the server") could not be sent safely.",
                reason: "The app holds no version tag (ETag) of what it would change.",
                suggestion: "Reload and try again.")
        default:
            return ErrorWords(description: "\(request) failed.", reason: "Something went wrong.", suggestion: nil)
        }
    }
}

extension HTTPError: UserFacingError {
    /// `The request to <site> failed: <the server's message>.`, or the status when the body
    /// has no message to show.
    func words(at url: URL?) -> ErrorWords {
        let reason = HTTPURLResponse.localizedString(forStatusCode: status)
        let statusText = "HTTP \(status)" + (reason.isEmpty ? "" : " \(reason)")
        let message = ErrorWording.serverMessage(in: body, contentType: headers["Content-Type"], reason: reason)
        let request = ErrorWording.theRequest(to: self.url)
        return ErrorWords(
            description: message.map { ErrorWording.sentence("\(request) failed: \($0)") }
                ?? "\(request) failed (\(statusText)).",
            reason: "\(ErrorWording.theServer(self.url)) answered HTTP \(status)"
                + (reason.isEmpty ? "." : " (\(reason))."),
            suggestion: ErrorWording.suggestion(forStatus: status))
    }
}

extension TransportError: UserFacingError {
    /// What failed, naming the host and port, without the transport's words unless they can
    /// be shown.
    func words(at url: URL?) -> ErrorWords {
        if let tlsError { return tlsError.words(at: url) }
        if let proxyError { return proxyError.words(at: url) }
        if let redirectError { return redirectError.words(at: url) }
        if let kind = tlsKind { return TLSError(kind: kind, url: self.url, detail: detail).words(at: url) }
        let server = "The server \(hostAndPort)"
        let network = "Check your network connection and try again."
        switch code {
        case .hostNotFound:
            return ErrorWords(
                description: "\(server) could not be found.", reason: "Its name does not resolve to an address.",
                suggestion: "Check the address and your network connection.")
        case .connectionRefused:
            return ErrorWords(
                description: "\(server) refused the connection.", reason: "Nothing answers on its port.",
                suggestion: "Check that the server is running, then try again.")
        case .hostUnreachable:
            return ErrorWords(
                description: "\(server) could not be reached.", reason: "The network or the server is unreachable.",
                suggestion: "Check your network connection.")
        case .connectionReset:
            return ErrorWords(
                description: "The connection to \(hostAndPort) was lost.",
                reason: "It closed before the whole reply arrived.", suggestion: "Try again.")
        case .timedOut:
            return ErrorWords(
                description: "\(server) did not answer in time.",
                reason: limit.map { "No reply came within \($0.spoken)." } ?? "No reply came in time.",
                suggestion: network)
        case .badResponse:
            return ErrorWords(
                description: "\(server) sent a reply that could not be read.", reason: "It did not answer in HTTP.",
                suggestion: "Try again later.")
        case .proxyFailed:
            return ErrorWords(
                description: "The request to \(hostAndPort) could not go through its proxy.",
                reason: "The proxy failed.", suggestion: "Check the proxy settings.")
        case .tooManyRedirects, .redirectRefused:
            return ErrorWords(
                description: "\(server) redirected the request where it cannot be followed.",
                reason: code == .tooManyRedirects ? "It redirected too many times." : "The redirect was refused.",
                suggestion: nil)
        default:
            return ErrorWords(
                description: "The request to \(hostAndPort) failed.",
                reason: ErrorWording.shown(detail).map(ErrorWording.sentence) ?? "The connection failed.",
                suggestion: network)
        }
    }
}

extension TLSError: UserFacingError {
    /// `A secure connection to <host> could not be made.`, with the kind as the reason.
    func words(at url: URL?) -> ErrorWords {
        let site = ErrorWording.site(self.url) ?? host
        let reason: String
        var suggestion: String?
        switch kind {
        case .untrustedCertificate: reason = "Its certificate is not trusted."
        case .expiredCertificate:
            reason = "Its certificate has expired or is not valid yet."
            suggestion = "Check the date and time of this device."
        case .hostNameMismatch: reason = "Its certificate is for another server."
        case .pinnedKeyMismatch: reason = "Its key is not one the app expects."
        case .clientCertificateRequired: reason = "It asks for a client certificate."
        case .protocolVersion: reason = "It offers no TLS version the app accepts."
        default:
            reason = "The TLS handshake failed."
            suggestion = "Try again."
        }
        return ErrorWords(
            description: "A secure connection to \(site) could not be made.", reason: reason, suggestion: suggestion)
    }
}

extension ProxyError: UserFacingError {
    /// `The request to <host> could not go through the proxy.`, naming the proxy (never its
    /// credentials) in the reason.
    func words(at url: URL?) -> ErrorWords {
        let site = ErrorWording.site(self.url) ?? "the server"
        let reason: String
        switch self.reason {
        case .cannotResolve: reason = "The proxy \(proxy) could not be found."
        case .cannotConnect: reason = "The proxy \(proxy) could not be reached."
        case .authenticationRequired: reason = "The proxy \(proxy) asks for credentials."
        case .tunnelRefused(let status): reason = "The proxy \(proxy) refused the connection (HTTP \(status))."
        case .credentialsInClear: reason = "Credentials would have gone unencrypted through the proxy \(proxy)."
        case .invalidProxyURL: reason = "The proxy setting cannot be used."
        }
        return ErrorWords(
            description: "The request to \(site) could not go through the proxy.", reason: reason,
            suggestion: "Check the proxy settings.")
    }
}

extension RedirectError: UserFacingError {
    /// `The server <host> redirected the request where it cannot be followed.`
    func words(at url: URL?) -> ErrorWords {
        let reason: String
        switch self.reason {
        case .tooManyRedirects(let limit): reason = "It redirected more than \(limit) times."
        case .unsupportedScheme(let scheme):
            reason =
                ErrorWording.shown(scheme).map { "The redirect leads to a \($0) address." }
                ?? "The redirect leads to an address the app does not fetch."
        case .invalidLocation: reason = "The redirect leads to no valid address."
        }
        return ErrorWords(
            description: "\(ErrorWording.theServer(self.url)) redirected the request where it cannot be followed.",
            reason: reason, suggestion: nil)
    }
}

extension HALDocumentError: UserFacingError {
    /// A reply that is not JSON names its content type; one that is JSON says what is wrong
    /// in general words, never the JSON.
    func words(at url: URL?) -> ErrorWords {
        let reply = ErrorWording.theReply(from: self.url ?? url)
        if let type = ErrorWording.mediaType(contentType), !ErrorWording.isJSON(type) {
            let isPage = type == "text/html" || type == "application/xhtml+xml"
            return ErrorWords(
                description: "\(reply) is \(type), not a HAL document.",
                reason: isPage
                    ? "The server sent a web page where the app expected data."
                    : "The server sent \(type) where the app expected a HAL document.",
                suggestion: isPage ? "Check the address, or sign in to the network if it asks you to." : nil)
        }
        switch code {
        case .invalidJSON, .invalidUTF8, .nestingTooDeep:
            let reason =
                code == .invalidUTF8
                ? "It is not valid UTF-8 text."
                : code == .nestingTooDeep
                    ? "It nests values deeper than the app reads." : "It is not valid JSON."
            return ErrorWords(description: "\(reply) could not be read.", reason: reason, suggestion: nil)
        default:
            return ErrorWords(
                description: "\(reply) is not a valid HAL document.",
                reason: ErrorWording.shown(message).map(ErrorWording.sentence)
                    ?? "It is not in the form the app expects.",
                suggestion: nil)
        }
    }
}

extension JSONParsingError: UserFacingError {
    /// `The data is not valid JSON.`, with what is wrong.
    func words(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "\(ErrorWording.site(url).map { "The data from \($0)" } ?? "The data") is not valid JSON.",
            reason: ErrorWording.shown(message).map(ErrorWording.sentence) ?? "It cannot be read.", suggestion: nil)
    }
}

extension URITemplateError: UserFacingError {
    /// `A link could not be followed.`: the template is the app's or the server's mistake.
    func words(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "\(ErrorWording.site(url).map { "A link from \($0)" } ?? "A link") could not be followed.",
            reason: "Its address template is malformed.", suggestion: nil)
    }
}

extension IncludePathError: UserFacingError {
    /// `The request could not be made.`: an include path is the app's mistake.
    func words(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "\(ErrorWording.theRequest(to: url)) could not be made.",
            reason: "An include path of the app is malformed.", suggestion: nil)
    }
}

extension ResponseBodyTooLargeError: UserFacingError {
    /// `The reply from <host> is too large.`, with the limit.
    func words(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "\(ErrorWording.theReply(from: self.url)) is too large.",
            reason: "It is larger than \(limit) bytes, the most the app accepts.", suggestion: nil)
    }
}

extension ResponseHeadersTooLargeError: UserFacingError {
    /// `The reply from <host> is too large.`, with the limit on its headers.
    func words(at url: URL?) -> ErrorWords {
        let reason: String
        switch limit {
        case .bytes(let bytes): reason = "Its headers are larger than \(bytes) bytes, the most the app accepts."
        case .count(let count): reason = "It has more than \(count) header fields, the most the app accepts."
        }
        return ErrorWords(
            description: "\(ErrorWording.theReply(from: self.url)) is too large.", reason: reason, suggestion: nil)
    }
}

extension HALFormValidationError: UserFacingError {
    /// `The values of item and quantity are not valid.`, with each failure as the reason.
    func words(at url: URL?) -> ErrorWords {
        let names = properties
        let description =
            names.count == 1
            ? "The value of \(names[0]) is not valid."
            : "The values of \(ErrorWording.spokenList(names)) are not valid."
        let reasons = failures.compactMap { failure in ErrorWording.shown("for \(failure.property): \(failure.message)")
        }
        return ErrorWords(
            description: description,
            reason: reasons.isEmpty
                ? "They break the form's rules." : ErrorWording.sentence(reasons.joined(separator: "; ")),
            suggestion: "Correct the values and try again.")
    }
}

extension CurlUnavailableError: UserFacingError {
    /// `The network library libcurl could not be loaded.`
    func words(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "The network library libcurl could not be loaded.",
            reason: "It is missing, older than 7.68, or failed to start.",
            suggestion: "Install libcurl 7.68 or later.")
    }
}

extension UnsupportedSettingsError: UserFacingError {
    /// `A connection setting is not supported here.`, naming the settings.
    func words(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "A connection setting of the app is not supported here.",
            reason: ErrorWording.sentence("\(requester) cannot honour \(settings.joined(separator: ", "))"),
            suggestion: ErrorWording.shown(advice).map(ErrorWording.sentence))
    }
}

extension TLSConfigurationError: UserFacingError {
    /// `The secure connection settings of the app cannot be used.`
    func words(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "The secure connection settings of the app cannot be used.",
            reason: ErrorWording.shown(description).map(ErrorWording.sentence) ?? "A certificate or key is unusable.",
            suggestion: nil)
    }
}

extension UnimplementedRequesterError: UserFacingError {
    /// `The request could not be sent.`: the requester is the app's mistake.
    func words(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "\(ErrorWording.theRequest(to: url)) could not be sent.",
            reason: "The app's requester \(requester) implements no way to send it.", suggestion: nil)
    }
}

// MARK: - LocalizedError

extension HalleyError: LocalizedError {
    /// What failed and the host, for the app's user: `The request to api.example.com failed:
    /// Out of stock.` Never a URL's path or query, JSON or a body; ``description`` has those.
    public var errorDescription: String? { words(at: nil).description }
    /// Why, for the app's user: `The server api.example.com answered HTTP 409 (Conflict).`
    public var failureReason: String? { words(at: nil).reason }
    /// What the app's user can do, when there is something: `Reload and try again.`
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension HTTPError: LocalizedError {
    /// `The request to <host> failed: <the body's message>.` (a JSON body's `detail`, `title`
    /// or `message`, never the JSON), or `… failed (HTTP 404 Not Found).`
    public var errorDescription: String? { words(at: nil).description }
    /// `The server <host> answered HTTP 422 (Unprocessable Entity).`
    public var failureReason: String? { words(at: nil).reason }
    /// What to do after this status (sign in, reload, check the values, wait), when anything.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension HALDocumentError: LocalizedError {
    /// `The reply from <host> is text/html, not a HAL document.` for a reply that is not
    /// JSON; else what kind of problem, never the JSON.
    public var errorDescription: String? { words(at: nil).description }
    /// Why, in general words: `It is not valid JSON.`
    public var failureReason: String? { words(at: nil).reason }
    /// What to do, for a web page where a document was expected.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension JSONParsingError: LocalizedError {
    /// `The data is not valid JSON.`
    public var errorDescription: String? { words(at: nil).description }
    /// What is wrong, without the offset and path.
    public var failureReason: String? { words(at: nil).reason }
    /// Nothing a user can do.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension URITemplateError: LocalizedError {
    /// `A link could not be followed.`
    public var errorDescription: String? { words(at: nil).description }
    /// `Its address template is malformed.`
    public var failureReason: String? { words(at: nil).reason }
    /// Nothing a user can do.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension IncludePathError: LocalizedError {
    /// `The request could not be made.`
    public var errorDescription: String? { words(at: nil).description }
    /// `An include path of the app is malformed.`
    public var failureReason: String? { words(at: nil).reason }
    /// Nothing a user can do.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension ResponseBodyTooLargeError: LocalizedError {
    /// `The reply from <host> is too large.`
    public var errorDescription: String? { words(at: nil).description }
    /// The limit in bytes.
    public var failureReason: String? { words(at: nil).reason }
    /// Nothing a user can do.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension ResponseHeadersTooLargeError: LocalizedError {
    /// `The reply from <host> is too large.`
    public var errorDescription: String? { words(at: nil).description }
    /// The limit on the headers that was passed.
    public var failureReason: String? { words(at: nil).reason }
    /// Nothing a user can do.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension RedirectError: LocalizedError {
    /// `The server <host> redirected the request where it cannot be followed.`
    public var errorDescription: String? { words(at: nil).description }
    /// Why the redirect was not followed.
    public var failureReason: String? { words(at: nil).reason }
    /// Nothing a user can do.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension HALFormValidationError: LocalizedError {
    /// `The values of item and quantity are not valid.`
    public var errorDescription: String? { words(at: nil).description }
    /// Each failing property and what is wrong with its value.
    public var failureReason: String? { words(at: nil).reason }
    /// `Correct the values and try again.`
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension CurlUnavailableError: LocalizedError {
    /// `The network library libcurl could not be loaded.`
    public var errorDescription: String? { words(at: nil).description }
    /// `It is missing, older than 7.68, or failed to start.` (``reason`` has the loader's words.)
    public var failureReason: String? { words(at: nil).reason }
    /// `Install libcurl 7.68 or later.`
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension TransportError: LocalizedError {
    /// What failed, naming the host: `The server nosuch.invalid could not be found.`
    public var errorDescription: String? { words(at: nil).description }
    /// Why, in general words: `Its name does not resolve to an address.`
    public var failureReason: String? { words(at: nil).reason }
    /// What to do: `Check the address and your network connection.`
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension TLSError: LocalizedError {
    /// `A secure connection to <host> could not be made.`
    public var errorDescription: String? { words(at: nil).description }
    /// What is wrong with the certificate or the handshake.
    public var failureReason: String? { words(at: nil).reason }
    /// What to do, when the user can do something (check the device's clock).
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension ProxyError: LocalizedError {
    /// `The request to <host> could not go through the proxy.`
    public var errorDescription: String? { words(at: nil).description }
    /// What the proxy did, naming it without credentials.
    public var failureReason: String? { words(at: nil).reason }
    /// `Check the proxy settings.`
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension TLSConfigurationError: LocalizedError {
    /// `The secure connection settings of the app cannot be used.`
    public var errorDescription: String? { words(at: nil).description }
    /// The file or value and what is wrong with it.
    public var failureReason: String? { words(at: nil).reason }
    /// Nothing a user can do.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension UnsupportedSettingsError: LocalizedError {
    /// `A connection setting of the app is not supported here.`
    public var errorDescription: String? { words(at: nil).description }
    /// The requester and the settings it cannot honour.
    public var failureReason: String? { words(at: nil).reason }
    /// What to do instead.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}

extension UnimplementedRequesterError: LocalizedError {
    /// `The request could not be sent.`
    public var errorDescription: String? { words(at: nil).description }
    /// The requester type that implements no way to send it.
    public var failureReason: String? { words(at: nil).reason }
    /// Nothing a user can do.
    public var recoverySuggestion: String? { words(at: nil).suggestion }
}
