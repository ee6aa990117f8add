import Foundation

/// Answers requests from files under a directory, for offline use, demos and tests.
///
/// The URL's host is ignored; its path picks the file:
///
/// | URL | File |
/// | --- | --- |
/// | `https://api.example.com/contacts/1` | `DIR/contacts/1.json` |
/// | `https://api.example.com/` or no path | `DIR/index.json` |
/// | `https://api.example.com/contacts/` | `DIR/contacts/index.json` |
/// | `https://api.example.com/contacts` with no `contacts.json` | `DIR/contacts/index.json` |
/// | `https://api.example.com/contacts?page=2&size=5` | `DIR/contacts@page=2&size=5.json` |
/// | `https://api.example.com/data.json` | `DIR/data.json` |
///
/// A missing file answers `404`; a path with `..` never leaves the directory (`404` too).
/// `file:` URLs are mapped the same way, so a document linking to `file:///etc/passwd`
/// reads `DIR/etc/passwd.json` at most.
///
/// ```swift
/// let manager = ResourceManager(requester: FileRequester(directory: URL(fileURLWithPath: "Fixtures/api")))
/// ```
public struct FileRequester: RequesterInterface {
    /// The directory answering requests.
    public let directory: URL

    /// Creates a requester serving `directory`.
    public init(directory: URL) {
        self.directory = directory.standardizedFileURL
    }

    /// `http`, `https` and `file`.
    public var supportedSchemes: Set<String> { ["http", "https", "file"] }

    /// Reads the file the URL maps to.
    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        try Task.checkCancellation()
        for candidate in candidates(for: request.url) {
            if let body = try? Data(contentsOf: candidate) {
                return ResourceResponse(status: 200, headers: ["Content-Type": "application/hal+json"],
                                        url: request.url, body: body)
            }
        }
        let message = #"{"title": "Not Found", "status": 404, "detail": "no fixture file for this URL"}"#
        return ResourceResponse(status: 404, headers: ["Content-Type": "application/problem+json"],
                                url: request.url, body: Data(message.utf8))
    }

    /// The files that may answer `url`, most specific first.
    public func candidates(for url: URL) -> [URL] {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let rawPath = components?.percentEncodedPath ?? url.path
        let parts = rawPath.split(separator: "/", omittingEmptySubsequences: true)
            .map { $0.removingPercentEncoding ?? String($0) }
        guard !parts.contains(where: { $0 == ".." || $0 == "." || $0.contains("/") }) else { return [] }
        var base = directory
        for part in parts { base.appendPathComponent(part) }
        guard base.standardizedFileURL.path.hasPrefix(directory.path) else { return [] }
        if parts.isEmpty || rawPath.hasSuffix("/") {
            return [base.appendingPathComponent("index.json")]
        }
        if let query = components?.percentEncodedQuery, !query.isEmpty {
            let name = base.lastPathComponent + "@" + query + ".json"
            return [base.deletingLastPathComponent().appendingPathComponent(name)]
        }
        if base.pathExtension == "json" { return [base] }
        return [base.appendingPathExtension("json"), base.appendingPathComponent("index.json")]
    }
}
