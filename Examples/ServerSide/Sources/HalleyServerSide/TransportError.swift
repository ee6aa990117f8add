import AsyncHTTPClient
import Foundation
import Halley
import NIOHTTP1
import NIOHTTPCompression

/// Turns AsyncHTTPClient's and SwiftNIO's errors into the ones Halley's engine reads the same
/// way for every requester: timeouts as `URLError(.timedOut)`, limits as Halley's limit
/// errors, cancellation as `CancellationError`. Anything else passes through and is reported
/// as a transport failure.
enum TransportError {
    static func translate(_ error: any Error, url: URL, maxDecompressedBytes: Int?) -> any Error {
        switch error {
        case is CancellationError:
            return error
        case let error as HTTPClientError:
            if error == .cancelled || Task.isCancelled { return CancellationError() }
            let timeouts: [HTTPClientError] = [
                .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
                .getConnectionFromPoolTimeout,
            ]
            if timeouts.contains(error) {
                return URLError(
                    .timedOut,
                    userInfo: [NSURLErrorFailingURLErrorKey: url, NSLocalizedDescriptionKey: error.description])
            }
            return error
        case HTTPParserError.headerOverflow:
            return ResponseHeadersTooLargeError(url: url, limit: .bytes(AsyncHTTPClientRequester.parserHeaderLimit))
        case NIOHTTPDecompression.DecompressionError.limit:
            return ResponseBodyTooLargeError(url: url, limit: maxDecompressedBytes ?? 0)
        default:
            return Task.isCancelled ? CancellationError() : error
        }
    }
}
