internal import CHalleyCurl

/// libcurl could not be loaded, so ``CurlRequester`` cannot be made.
///
/// ```swift
/// do {
///     let requester = try CurlRequester()
///     print("using libcurl", requester)
/// } catch {
///     // `init` throws only CurlUnavailableError (typed throws).
///     print("falling back to URLSession:", error.reason)
/// }
/// ```
public struct CurlUnavailableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why: the library is missing, too old (Halley needs 7.68 or later), or failed to
    /// initialize.
    public let reason: String

    /// Creates the error.
    public init(reason: String) {
        self.reason = reason
    }

    /// `libcurl is not available: <reason>`.
    public var description: String { "libcurl is not available: \(reason)" }
}

/// The process's libcurl, opened once on first use.
package enum CurlLibrary {
    /// `nil` once libcurl is loaded and initialized; the reason it could not be otherwise.
    static let loadFailure: CurlUnavailableError? = {
        var reason = [CChar](repeating: 0, count: 256)
        let loaded = reason.withUnsafeMutableBufferPointer { halley_curl_load($0.baseAddress, $0.count) }
        if loaded == 1 { return nil }
        let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return CurlUnavailableError(reason: text.isEmpty ? "unknown" : text)
    }()

    /// Loads libcurl if needed.
    ///
    /// - Throws: ``CurlUnavailableError`` when it cannot be loaded.
    static func load() throws(CurlUnavailableError) {
        if let loadFailure { throw loadFailure }
    }

    /// `Accept-Encoding` naming what this libcurl decodes, in the order libcurl itself lists
    /// them for `CURLOPT_ACCEPT_ENCODING` "" (`deflate, gzip, br, zstd` when built with all
    /// four); `nil` when it decodes none, or is not loaded.
    ///
    /// Sent as one of the request's own lines, libcurl leaves out its copy, which it would
    /// format byte by byte twice on every request; decoding stays on through
    /// `CURLOPT_ACCEPT_ENCODING`.
    ///
    /// perf: libcurl formats no `Accept-Encoding` line of its own;
    /// BENCHMARKS.md, "Why the hot paths look as they do".
    package static let acceptEncodingLine: String? = {
        // Loads libcurl first: read before that, the features would be none, for good.
        guard loadFailure == nil else { return nil }
        let features = halley_curl_features()
        var names: [String] = []
        if features & (1 << 3) != 0 { names += ["deflate", "gzip"] }  // CURL_VERSION_LIBZ
        if features & (1 << 23) != 0 { names.append("br") }  // CURL_VERSION_BROTLI
        if features & (1 << 26) != 0 { names.append("zstd") }  // CURL_VERSION_ZSTD
        return names.isEmpty ? nil : "Accept-Encoding: " + names.joined(separator: ", ")
    }()

    /// libcurl's version line, e.g. `libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13 ...`.
    static var version: String? {
        guard loadFailure == nil, let text = halley_curl_version() else { return nil }
        return String(cString: text)
    }
}
