import Foundation
import HalleyHAL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response whose status is not 2xx.
///
/// When the body is `application/problem+json` (RFC 9457) it is parsed into ``problem``.
public struct HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status code.
    public let status: Int
    /// The response header fields.
    public let headers: HeaderFields
    /// The URL that answered.
    public let url: URL
    /// The body.
    public let body: Data
    /// The problem details (RFC 9457), when the body is an `application/problem+json` object.
    public let problem: ProblemDetails?

    /// Creates an error from a response.
    public init(response: ResourceResponse) {
        status = response.status
        headers = response.headers
        url = response.url
        body = response.body
        let contentType = response.headers["Content-Type"]?.lowercased() ?? ""
        if contentType.hasPrefix("application/problem+json"),
            case .object(let object)? = try? JSONValue(parsing: response.body)
        {
            problem = ProblemDetails(object)
        } else {
            problem = nil
        }
    }

    /// What the body says, short and on one line, for messages: the problem's `title` and
    /// `detail`; an HTML page's `<title>`; the start of a plain-text or JSON body, its line
    /// breaks and control characters made spaces. Empty for a body that is not text (or an
    /// HTML page without a title): the bytes stay in ``body``.
    public var summary: String {
        if let problem, !problem.description.isEmpty { return ErrorWording.oneLine(problem.description) }
        let contentType = headers["Content-Type"]?.lowercased() ?? ""
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let head = body.prefix(2048)
        guard let text = String(data: head, encoding: .utf8) ?? Self.utf8Prefix(head) else { return "" }
        let looksLikeHTML = mediaType.isEmpty && text.drop { $0.isWhitespace }.lowercased().hasPrefix("<")
        if mediaType == "text/html" || mediaType == "application/xhtml+xml" || looksLikeHTML {
            return Self.htmlTitle(text).map { ErrorWording.oneLine($0) } ?? ""
        }
        let isText =
            mediaType.hasPrefix("text/") || mediaType == "application/json" || mediaType.hasSuffix("+json")
            || (mediaType.isEmpty && !text.unicodeScalars.contains { $0.value == 0 })
        guard isText else { return "" }
        let line = ErrorWording.oneLine(text)
        return line.count > Self.excerptLength || body.count > head.count
            ? String(line.prefix(Self.excerptLength)).trimmingCharacters(in: .whitespaces) + "…" : line
    }

    /// The most characters of a body ``summary`` shows.
    static let excerptLength = 160

    /// `HTTP 404 Not Found: <summary>`, without the URL: for messages that name it elsewhere.
    /// A summary that only repeats the status (a problem titled "Not Found", nginx's page
    /// titled "404 Not Found") is left out.
    public var statusLine: String {
        let reason = HTTPURLResponse.localizedString(forStatusCode: status)
        var summary = self.summary
        if let problem, let title = problem.title, title.caseInsensitiveCompare(reason) == .orderedSame {
            summary = problem.detail.map { ErrorWording.oneLine($0) } ?? ""
        }
        for repeated in [reason, "\(status) \(reason)", "\(status)"]
        where summary.caseInsensitiveCompare(repeated) == .orderedSame {
            summary = ""
        }
        return "HTTP \(status)" + (reason.isEmpty ? "" : " \(reason)") + (summary.isEmpty ? "" : ": \(summary)")
    }

    /// `HTTP 404 Not Found: <summary> (URL <url>)`, as ``HalleyError`` puts it.
    public var description: String {
        "\(statusLine) (URL \(url.absoluteString))"
    }

    /// The valid UTF-8 at the start of `bytes`, when a multi-byte character was cut at the end.
    private static func utf8Prefix(_ bytes: Data) -> String? {
        for cut in 1...3 where bytes.count > cut {
            if let text = String(data: bytes.dropLast(cut), encoding: .utf8) { return text }
        }
        return nil
    }

    /// The text of the first `<title>` element, entities for `&`, `<`, `>` and quotes read.
    private static func htmlTitle(_ html: String) -> String? {
        guard let open = html.range(of: "<title", options: .caseInsensitive),
            let openEnd = html[open.upperBound...].firstIndex(of: ">"),
            let close = html.range(of: "</title", options: .caseInsensitive, range: openEnd..<html.endIndex)
        else { return nil }
        var title = String(html[html.index(after: openEnd)..<close.lowerBound])
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            title = title.replacingOccurrences(of: entity, with: character)
        }
        let line = ErrorWording.oneLine(title)
        return line.isEmpty ? nil : line
    }

}
