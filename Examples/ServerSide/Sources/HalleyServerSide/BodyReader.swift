import AsyncHTTPClient
import Foundation
import Halley
import NIOCore

/// Reads a response body to its end, stopping at the request's limit.
enum BodyReader {
    /// What the body belongs to: a `HEAD` response has none, whatever `Content-Length` says.
    enum Source {
        case head
        case response(HeaderFields)
    }

    /// The whole body, counted as it arrives.
    ///
    /// Leaving the loop early drops AsyncHTTPClient's body sequence, which stops reading and
    /// closes the connection: past the limit nothing more is read.
    ///
    /// - Throws: `ResponseBodyTooLargeError` when a declared `Content-Length` or the bytes
    ///   read pass `limit`; `CancellationError` when the task is cancelled.
    static func read(_ body: HTTPClientResponse.Body, of source: Source, limit: Int?, url: URL) async throws -> Data {
        guard case .response(let headers) = source else { return Data() }
        if let limit, let declared = headers["Content-Length"].flatMap({ Int($0) }), declared > limit {
            throw ResponseBodyTooLargeError(url: url, limit: limit)
        }
        var data = Data()
        for try await buffer in body {
            if let limit, data.count + buffer.readableBytes > limit {
                throw ResponseBodyTooLargeError(url: url, limit: limit)
            }
            buffer.withUnsafeReadableBytes { data.append(contentsOf: $0) }
        }
        // A cancelled read may end like a finished one; a partial body must not look whole.
        try Task.checkCancellation()
        return data
    }
}
