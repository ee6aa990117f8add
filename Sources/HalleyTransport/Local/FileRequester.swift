import Foundation
import HalleyHAL

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
/// A missing file answers `404`. **Nothing outside the directory is ever read**: the final
/// path of every candidate, symlinks resolved, must lie inside the (resolved) directory; a
/// URL whose path or query would leave it (`/a/../../x`, `?q=/../../secret`, a symlink in the
/// directory pointing elsewhere) throws ``HalleyError`` with code
/// ``HalleyError/Code/invalidURL`` naming the URL and the path it maps to, and nothing is
/// read. `file:` URLs are mapped the same way, so a document linking to `file:///etc/passwd`
/// reads `DIR/etc/passwd.json` at most.
///
/// ```swift
/// let manager = ResourceManager(requester: FileRequester(directory: URL(fileURLWithPath: "Fixtures/api")))
/// ```
public struct FileRequester: ResourceRequester, Sendable {
    /// The directory answering requests.
    public let directory: URL

    /// The directory with symlinks resolved: what every file read must lie inside.
    private let resolvedDirectory: String

    /// Creates a requester serving `directory`.
    public init(directory: URL) {
        self.directory = directory.standardizedFileURL
        resolvedDirectory = Self.resolved(self.directory.path) ?? self.directory.path
    }

    /// `http`, `https` and `file`.
    public var supportedSchemes: Set<String> { ["http", "https", "file"] }

    /// Reads the file the URL maps to.
    public func response(for request: ResourceRequest) async throws -> ResourceResponse {
        try Task.checkCancellation()
        let url = request.url
        for candidate in candidates(for: url) {
            let lexical = candidate.standardizedFileURL.path
            guard Self.isInside(lexical, resolvedDirectory) || Self.isInside(lexical, directory.path) else {
                throw escape(request, path: lexical)
            }
            guard let resolved = Self.resolved(lexical) else { continue }  // no such file
            guard Self.isInside(resolved, resolvedDirectory) else { throw escape(request, path: resolved) }
            if let body = try? Data(contentsOf: URL(fileURLWithPath: resolved)) {
                return ResourceResponse(
                    status: 200, headers: ["Content-Type": "application/hal+json"],
                    location: request.location, body: body)
            }
        }
        let message = #"{"title": "Not Found", "status": 404, "detail": "no fixture file for this URL"}"#
        return ResourceResponse(
            status: 404, headers: ["Content-Type": "application/problem+json"],
            location: request.location, body: Data(message.utf8))
    }

    private func escape(_ request: ResourceRequest, path: String) -> HalleyError {
        HalleyError(
            code: .invalidURL, includePath: request.includePath, url: request.url,
            message:
                "the URL maps to \(path), outside the fixture directory \(directory.path); refused"
        )
    }

    /// Whether `path` is `directory` or below it (both absolute and normalised).
    private static func isInside(_ path: String, _ directory: String) -> Bool {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        return path == directory || path.hasPrefix(base)
    }

    /// The path with every symlink resolved, or `nil` when it does not exist.
    private static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// The files that may answer `url`, most specific first. They are checked before reading:
    /// a candidate outside the directory is refused, never read.
    public func candidates(for url: URL) -> [URL] {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let rawPath = components?.percentEncodedPath ?? url.path
        let parts = rawPath.split(separator: "/", omittingEmptySubsequences: true)
            .map { $0.removingPercentEncoding ?? String($0) }
        var base = directory
        for part in parts { base.appendPathComponent(part) }
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
