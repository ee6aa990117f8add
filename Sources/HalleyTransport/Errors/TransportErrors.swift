import Foundation

/// A response body passed the request's ``ResourceRequest/maxBodyBytes``; the transfer was
/// stopped while reading.
///
/// Requesters count the body after content decoding, so a small gzip body that inflates
/// past the limit is stopped too. The engine reports it as ``HalleyError/Code/limitExceeded``.
///
/// ```swift
/// var request = ResourceRequest(url: URL(string: "https://api.example.com/big")!)
/// request.maxBodyBytes = 1_000_000
/// do {
///     _ = try await CurlRequester().response(for: request)
/// } catch let error as ResponseBodyTooLargeError {
///     print(error.limit)   // 1000000
/// }
/// ```
public struct ResponseBodyTooLargeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL being read.
    public let url: URL
    /// The limit in bytes.
    public let limit: Int

    /// Creates the error.
    public init(url: URL, limit: Int) {
        self.url = url
        self.limit = limit
    }

    /// `the response body of <url> is larger than <limit> bytes`.
    public var description: String { "the response body of \(url.absoluteString) is larger than \(limit) bytes" }
}

/// A response's header section passed a requester's limit on its size or its number of
/// fields; the transfer was stopped.
///
/// ```swift
/// let requester = try CurlRequester(maxHeaderBytes: 64 * 1024, maxHeaderCount: 200)
/// do {
///     _ = try await requester.response(for: ResourceRequest(url: URL(string: "https://api.example.com/")!))
/// } catch let error as ResponseHeadersTooLargeError {
///     print(error)   // the response headers of https://api.example.com/ are more than 200 fields
/// }
/// ```
public struct ResponseHeadersTooLargeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which limit was passed.
    public enum Limit: Sendable, Hashable {
        /// The header section, all lines together, is larger than this many bytes.
        case bytes(Int)
        /// The response has more header fields than this.
        case count(Int)
    }

    /// The header section size requesters accept by default: 256 KiB, as browsers do.
    public static let defaultMaxBytes = 256 * 1024
    /// The number of header fields requesters accept by default: 1,000 (real APIs send
    /// a few dozen).
    public static let defaultMaxCount = 1_000

    /// The URL being read.
    public let url: URL
    /// The limit that was passed.
    public let limit: Limit

    /// Creates the error.
    public init(url: URL, limit: Limit) {
        self.url = url
        self.limit = limit
    }

    /// The description without the URL, for messages that name it elsewhere.
    package var summary: String { sentence(naming: nil) }

    /// `the response headers of <url> are larger than <n> bytes` (or `more than <n> fields`).
    public var description: String { sentence(naming: url) }

    /// The one wording of the limit that was passed, with or without the URL, so the two
    /// sentences cannot drift apart.
    private func sentence(naming url: URL?) -> String {
        let headers = url.map { "the response headers of \($0.absoluteString)" } ?? "the response headers"
        switch limit {
        case .bytes(let bytes): return "\(headers) are larger than \(bytes) bytes"
        case .count(let count): return "\(headers) are more than \(count) fields"
        }
    }
}

/// A redirect the requester refused to follow.
///
/// ```swift
/// do {
///     _ = try await CurlRequester().response(for: ResourceRequest(url: URL(string: "https://api.example.com/loop")!))
/// } catch let error as RedirectError {
///     if case .tooManyRedirects(let limit) = error.reason { print("gave up after \(limit) redirects") }
/// }
/// ```
public struct RedirectError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the redirect was refused.
    public enum Reason: Sendable, Hashable {
        /// More redirects in a row than the requester follows.
        case tooManyRedirects(limit: Int)
        /// The target's scheme is not `http` or `https` (a redirect to `file:` is refused).
        case unsupportedScheme(String)
        /// The `Location` field is not a URL.
        case invalidLocation(String)
    }

    /// The URL whose response redirected.
    public let url: URL
    /// Why it was not followed.
    public let reason: Reason

    /// Creates the error.
    public init(url: URL, reason: Reason) {
        self.url = url
        self.reason = reason
    }

    /// One line naming the URL and the reason.
    public var description: String {
        switch reason {
        case .tooManyRedirects(let limit):
            return "more than \(limit) redirects, the last from \(url.absoluteString)"
        case .unsupportedScheme(let scheme):
            return "\(url.absoluteString) redirects to a \"\(scheme)\" URL, which is not followed"
        case .invalidLocation(let location):
            return "\(url.absoluteString) redirects to \"\(location)\", which is not a URL"
        }
    }
}
