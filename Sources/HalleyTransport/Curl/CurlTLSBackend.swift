import Foundation

/// The TLS library a loaded libcurl uses, and what of a ``TLSConfiguration`` it cannot honour.
///
/// Linux's libcurl uses OpenSSL, which honours everything. macOS's own libcurl
/// (`/usr/lib/libcurl.4.dylib`) is built with LibreSSL, an OpenSSL fork that honours everything
/// too, and with Secure Transport beside it (`CURL_SSL_BACKEND=secure-transport` selects it; so
/// do older macOS releases and some Homebrew builds). Secure Transport cannot take what Halley
/// hands libcurl for three settings, so a requester over it throws ``UnsupportedSettingsError``
/// naming them rather than connect otherwise than configured:
///
/// - a client identity from PEM: it takes a PKCS#12 file or a keychain identity's name only;
/// - a minimum of TLS 1.3: it has no TLS 1.3;
/// - ``TLSConfiguration/dangerouslyTrustingAnyCertificate()``: without verifying the chain it
///   checks no host name either, which Halley always keeps.
enum CurlTLSBackend: Sendable, Hashable {
    /// OpenSSL, or a fork of it that libcurl drives the same way (LibreSSL, BoringSSL, AWS-LC,
    /// quictls).
    case openSSL(String)
    /// Apple's Secure Transport.
    case secureTransport
    /// Another library (GnuTLS, wolfSSL, mbedTLS, rustls, Schannel, ...): Halley claims nothing
    /// of it beyond what libcurl itself reports when it refuses an option.
    case other(String)
    /// No TLS library: `https` URLs fail with libcurl's own error.
    case none

    /// The backend in use, from `curl_version()`'s line (`libcurl/8.7.1 (SecureTransport)
    /// LibreSSL/3.3.6 zlib/1.2.12`): a build with several names each, and puts those not in
    /// use in parentheses.
    init(versionLine: String) {
        let tokens = versionLine.split(separator: " ").dropFirst().map(String.init)
        let active = tokens.first { token in
            !token.hasPrefix("(") && Self.tlsNames.contains { token.lowercased().hasPrefix($0.lowercased()) }
        }
        guard let active else {
            self = .none
            return
        }
        let name = active.lowercased()
        if name.hasPrefix("securetransport") {
            self = .secureTransport
        } else if ["openssl", "libressl", "boringssl", "aws-lc", "quictls"].contains(where: name.hasPrefix) {
            self = .openSSL(active)
        } else {
            self = .other(active)
        }
    }

    /// The names libcurl's version line gives its TLS libraries (lib/vtls/*.c).
    private static let tlsNames = [
        "OpenSSL", "LibreSSL", "BoringSSL", "AWS-LC", "quictls", "SecureTransport", "Schannel", "GnuTLS", "wolfSSL",
        "mbedTLS", "rustls", "BearSSL",
    ]

    /// The settings of `tls` this backend cannot honour, as ``UnsupportedSettingsError`` lists
    /// them; empty when it honours them all.
    func unsupportedSettings(of tls: TLSConfiguration) -> [String] {
        guard case .secureTransport = self else { return [] }
        var names: [String] = []
        if tls.clientIdentity != nil {
            names.append("client identity from PEM (Secure Transport takes a PKCS#12 file or a keychain identity)")
        }
        if tls.minimumVersion == .tls13 { names.append("minimum TLS version (TLS 1.3, which Secure Transport lacks)") }
        if tls.dangerouslySkipsCertificateVerification {
            names.append("dangerouslyTrustingAnyCertificate (Secure Transport would not check the host name)")
        }
        return names
    }

    /// Whether libcurl looks CA certificates up in a hashed directory (`CURLOPT_CAPATH`), as
    /// OpenSSL does; Secure Transport takes a bundle only, which replaces the system's trust.
    var searchesCADirectory: Bool {
        if case .secureTransport = self { return false }
        return true
    }
}
