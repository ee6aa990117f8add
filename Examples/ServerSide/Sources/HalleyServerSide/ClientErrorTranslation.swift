import AsyncHTTPClient
import Foundation
import Halley
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

/// Turns AsyncHTTPClient's and SwiftNIO's errors into the ones Halley's own requesters throw
/// for the same failures: Halley's `TransportError` with the same code (host not found,
/// connection refused or reset, timed out, TLS), limits as Halley's limit errors,
/// cancellation as `CancellationError`. The original error stays as the
/// `TransportError.underlying`; anything not recognised passes through and is reported as a
/// transport failure.
enum ClientErrorTranslation {
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
                return TransportError(code: .timedOut, url: url, detail: error.description, underlying: error)
            }
            if error == .remoteConnectionClosed {
                return TransportError(code: .connectionReset, url: url, underlying: error)
            }
            return error
        case HTTPParserError.headerOverflow:
            return ResponseHeadersTooLargeError(url: url, limit: .bytes(AsyncHTTPClientRequester.parserHeaderLimit))
        case NIOHTTPDecompression.DecompressionError.limit:
            return ResponseBodyTooLargeError(url: url, limit: maxDecompressedBytes ?? 0)
        case is NIOSSLError, is NIOSSLExtraError:
            return TransportError(classifying: tlsError(error, url: url), url: url) ?? error
        case let error as NIOConnectionError:
            // Every address refused or failed; with no address at all, the name did not resolve.
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return TransportError(code: .hostNotFound, url: url, underlying: error)
            }
            for failure in error.connectionErrors {
                if let translated = socketError(failure.error, url: url) { return translated }
            }
            return TransportError(code: .connectionRefused, url: url, underlying: error)
        case ChannelError.connectTimeout:
            return TransportError(code: .timedOut, url: url, underlying: error)
        case ChannelError.eof, ChannelError.ioOnClosedChannel, ChannelError.outputClosed:
            return TransportError(code: .connectionReset, url: url, underlying: error)
        default:
            if Task.isCancelled { return CancellationError() }
            return socketError(error, url: url) ?? error
        }
    }

    /// A socket's `errno` (refused, reset, unreachable) as the failure it names.
    private static func socketError(_ error: any Error, url: URL) -> TransportError? {
        guard let error = error as? IOError, let code = POSIXErrorCode(rawValue: error.errnoCode),
            let translated = TransportError(classifying: POSIXError(code), url: url)
        else { return nil }
        return TransportError(
            code: translated.code, url: url, detail: translated.detail, underlying: error, limit: translated.limit)
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
