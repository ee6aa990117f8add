import Foundation

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
    public let headers: HTTPHeaders
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

    /// The problem's `title` and `detail`, or the start of the body, for messages.
    public var summary: String {
        if let problem, !problem.description.isEmpty { return problem.description }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
            .replacingOccurrences(of: "\n", with: " ")
            .trimmingCharacters(in: .whitespaces)
        return body.count > 200 ? text + "…" : text
    }

    /// `HTTP 404 Not Found: <summary>`, without the URL: for messages that name it elsewhere.
    /// A problem title that only repeats the reason phrase is left out.
    public var statusLine: String {
        let reason = HTTPURLResponse.localizedString(forStatusCode: status)
        var summary = self.summary
        if let problem, let title = problem.title, title.caseInsensitiveCompare(reason) == .orderedSame {
            summary = problem.detail ?? ""
        }
        return "HTTP \(status)" + (reason.isEmpty ? "" : " \(reason)") + (summary.isEmpty ? "" : ": \(summary)")
    }

    /// `HTTP 404 Not Found for <url>: <summary>`.
    public var description: String {
        let line = statusLine
        guard let colon = line.range(of: ": ") else { return "\(line) for \(url.absoluteString)" }
        return "\(line[..<colon.lowerBound]) for \(url.absoluteString)\(line[colon.lowerBound...])"
    }
}
