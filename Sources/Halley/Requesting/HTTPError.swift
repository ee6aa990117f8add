import Foundation

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
    /// The problem details object, when the body is `application/problem+json`.
    public let problem: JSONObject?

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
            problem = object
        } else {
            problem = nil
        }
    }

    /// The problem's `title`, or the start of the body, for messages.
    public var summary: String {
        if let problem {
            let parts = [problem["title"]?.stringValue, problem["detail"]?.stringValue].compactMap { $0 }
            if !parts.isEmpty { return parts.joined(separator: ": ") }
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
            .replacingOccurrences(of: "\n", with: " ")
            .trimmingCharacters(in: .whitespaces)
        return body.count > 200 ? text + "…" : text
    }

    /// `HTTP 404 for <url>: <summary>`.
    public var description: String {
        let summary = self.summary
        return "HTTP \(status) for \(url.absoluteString)" + (summary.isEmpty ? "" : ": \(summary)")
    }
}
