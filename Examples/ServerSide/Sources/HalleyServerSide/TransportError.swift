import AsyncHTTPClient
import Foundation
import Halley
import NIOHTTP1
import NIOHTTPCompression
import NIOSSL

/// Turns AsyncHTTPClient's and SwiftNIO's errors into the ones Halley's engine reads the same
/// way for every requester: timeouts as `URLError(.timedOut)`, limits as Halley's limit
/// errors, TLS failures as `TLSError`, cancellation as `CancellationError`. Anything else
/// passes through and is reported as a transport failure.
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
        case is NIOSSLError, is NIOSSLExtraError:
            return tlsError(error, url: url)
        default:
            return Task.isCancelled ? CancellationError() : error
        }
    }

    /// A NIOSSL failure as the `TLSError` Halley's own requesters give for it, from BoringSSL's
    /// reason (the only place NIOSSL says why).
    private static func tlsError(_ error: any Error, url: URL) -> TLSError {
        let detail = "\(error)"
        let reason = detail.uppercased()
        let kind: TLSError.Kind
        if reason.contains("HOSTNAME") {
            kind = .hostNameMismatch
        } else if reason.contains("CERTIFICATE_VERIFY_FAILED") {
            kind = .untrustedCertificate
        } else if reason.contains("CERTIFICATE_REQUIRED") || reason.contains("BAD_CERTIFICATE")
            || reason.contains("UNKNOWN_CA")
        {
            kind = .clientCertificateRequired
        } else if reason.contains("PROTOCOL_VERSION") || reason.contains("UNSUPPORTED_PROTOCOL") {
            kind = .protocolVersion
        } else {
            kind = .handshakeFailed
        }
        return TLSError(kind: kind, url: url, detail: detail)
    }
}
