import Foundation

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
package struct ErrorWords: Sendable, Hashable {
    /// What failed, and where: `errorDescription`.
    package var description: String
    /// Why: `failureReason`.
    package var reason: String?
    /// What to do: `recoverySuggestion`.
    package var suggestion: String?

    /// Creates the words of an error.
    package init(description: String, reason: String? = nil, suggestion: String? = nil) {
        self.description = description
        self.reason = reason
        self.suggestion = suggestion
    }
}

extension ErrorWords {
    /// A link's template that cannot be parsed or expanded: a ``URITemplateError``, or a
    /// ``HalleyError`` with the code ``HalleyError/Code/invalidTemplate`` that carries none.
    static func malformedTemplate(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "\(ErrorWording.aLink(from: url)) could not be followed.",
            reason: "Its address template is malformed.")
    }

    /// An include path of the app that is malformed: an ``IncludePathError``, or a
    /// ``HalleyError`` with the code ``HalleyError/Code/invalidInclude`` that carries none.
    static func malformedInclude(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "\(ErrorWording.theRequest(to: url)) could not be made.",
            reason: "An include path of the app is malformed.")
    }
}

/// An error worded for people by this file; `url` is the URL of the call it failed in, for
/// errors that do not hold one.
package protocol UserFacingError: Error {
    /// The error in words for the people using an app.
    func words(at url: URL?) -> ErrorWords
}

/// The rules every public error's user-facing words follow.
package enum ErrorWording {
    /// The most characters of text from elsewhere (a server's message) shown.
    package static let shownLength = 160

    /// Where a request went, as a person would say it: the host, with the port when the URL
    /// names one (`api.example.com`, `127.0.0.1:8080`); never the path or the query.
    package static func site(_ url: URL?) -> String? {
        guard let url, let host = url.host, !host.isEmpty else { return nil }
        guard let port = url.port else { return host }
        return host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// `text` with its first letter capitalised and a final period.
    package static func sentence(_ text: String) -> String {
        guard let first = text.first else { return text }
        let capitalised = first.uppercased() + text.dropFirst()
        return [".", "!", "?", "…"].contains { capitalised.hasSuffix($0) } ? capitalised : capitalised + "."
    }

    /// `text` on one line: every run of whitespace and control characters (CR, LF, tab,
    /// escape, ...) becomes one space, so nothing raw reaches a log or a terminal.
    package static func oneLine(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
                || scalar.properties.isWhitespace
            {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace {
                result.unicodeScalars.append(" ")
                pendingSpace = false
            }
            result.unicodeScalars.append(scalar)
        }
        return result
    }

    /// Text from a server or a transport, fit to show: on one line, cut to ``shownLength``;
    /// `nil` when it is empty or holds a URL, JSON or markup, which a person cannot use.
    package static func shown(_ text: String) -> String? {
        var line = oneLine(text)
        while let last = line.last, last == "." || last == " " { line.removeLast() }
        guard !line.isEmpty, !line.contains("://"), !line.contains(where: { "{}<>".contains($0) }) else { return nil }
        guard line.count > shownLength else { return line }
        return String(line.prefix(shownLength)).trimmingCharacters(in: .whitespaces) + "…"
    }

    /// The media type of a `Content-Type` value, lowercased, without parameters.
    package static func mediaType(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return type.isEmpty ? nil : type.lowercased()
    }

    /// Whether a media type is JSON (`application/json`, any `+json`).
    package static func isJSON(_ mediaType: String) -> Bool {
        mediaType == "application/json" || mediaType.hasSuffix("+json")
    }

    /// The message of a JSON error body: RFC 9457's `detail` or `title`; FastAPI's `detail`
    /// (a string, or a list of objects: the first one's `msg`); Spring's and many others'
    /// `message`; `error` (a string, or an object with a `message`); JSON:API's `errors`
    /// (the first one's `detail` or `title`); OAuth's `error_description`. `nil` for a body
    /// that is not a JSON object or has none of these, and for one that only says the status
    /// phrase: the raw JSON is never shown.
    package static func serverMessage(in body: Data, contentType: String?, reason: String) -> String? {
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
    package static func theRequest(to url: URL?) -> String {
        site(url).map { "The request to \($0)" } ?? "The request"
    }

    /// `The reply from <site>` or `The reply`, to start a sentence.
    package static func theReply(from url: URL?) -> String {
        site(url).map { "The reply from \($0)" } ?? "The reply"
    }

    /// `The data from <site>` or `The data`, to start a sentence.
    package static func theData(from url: URL?) -> String {
        site(url).map { "The data from \($0)" } ?? "The data"
    }

    /// `A link from <site>` or `A link`, to start a sentence.
    package static func aLink(from url: URL?) -> String {
        site(url).map { "A link from \($0)" } ?? "A link"
    }

    /// `The server <site>` or `The server`, to start a sentence.
    package static func theServer(_ url: URL?) -> String {
        site(url).map { "The server \($0)" } ?? "The server"
    }

    /// What to do after a status, when the user can do something.
    package static func suggestion(forStatus status: Int) -> String? {
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
    package static func spokenList(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }
}
// MARK: - The words of the HAL layer's errors

extension HalleyError: UserFacingError {
    /// The underlying error's words when it has some (an HTTP status, a transport failure, a
    /// document, a form's values); else the code's.
    package func words(at callURL: URL?) -> ErrorWords {
        let url = self.url ?? callURL
        if let underlying = underlying as? any UserFacingError { return underlying.words(at: url) }
        let request = ErrorWording.theRequest(to: url)
        let reply = ErrorWording.theReply(from: url)
        let data = ErrorWording.theData(from: url)
        let link = ErrorWording.aLink(from: url)
        // Mid-sentence: `The list from api.example.com`, `The form from the server`.
        let server = ErrorWording.site(url) ?? "the server"
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
            return .malformedTemplate(at: url)
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
            return .malformedInclude(at: url)
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
                description: "The list from \(server) could not be read to the end.",
                reason: "Its pages link back to a page already read.", suggestion: nil)
        case .pageMismatch:
            return ErrorWords(
                description: "The list from \(server) could not be read.",
                reason: "The server answered with another page than the one asked for.", suggestion: nil)
        case .missingForm:
            return ErrorWords(
                description: "This action is not available from \(server).",
                reason: "The resource offers no form for it.", suggestion: "Reload and try again.")
        case .unsupportedContentType:
            return ErrorWords(
                description: "The form from \(server) cannot be sent.",
                reason: "It asks for a content type the app cannot write.", suggestion: nil)
        case .missingValidator:
            return ErrorWords(
                description: "The change to \(server) could not be sent safely.",
                reason: "The app holds no version tag (ETag) of what it would change.",
                suggestion: "Reload and try again.")
        default:
            return ErrorWords(description: "\(request) failed.", reason: "Something went wrong.", suggestion: nil)
        }
    }
}

extension HALDocumentError: UserFacingError {
    /// A reply that is not JSON names its content type; one that is JSON says what is wrong
    /// in general words, never the JSON.
    package func words(at url: URL?) -> ErrorWords {
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
    package func words(at url: URL?) -> ErrorWords {
        ErrorWords(
            description: "\(ErrorWording.theData(from: url)) is not valid JSON.",
            reason: ErrorWording.shown(message).map(ErrorWording.sentence) ?? "It cannot be read.", suggestion: nil)
    }
}

extension URITemplateError: UserFacingError {
    /// `A link could not be followed.`: the template is the app's or the server's mistake.
    package func words(at url: URL?) -> ErrorWords { .malformedTemplate(at: url) }
}

extension IncludePathError: UserFacingError {
    /// `The request could not be made.`: an include path is the app's mistake.
    package func words(at url: URL?) -> ErrorWords { .malformedInclude(at: url) }
}

extension HalleyError: LocalizedError {
    /// What failed and the host, for the app's user: `The request to api.example.com failed:
    /// Out of stock.` Never a URL's path or query, JSON or a body; ``description`` has those.
    public var errorDescription: String? { words(at: nil).description }
    /// Why, for the app's user: `The server api.example.com answered HTTP 409 (Conflict).`
    public var failureReason: String? { words(at: nil).reason }
    /// What the app's user can do, when there is something: `Reload and try again.`
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
