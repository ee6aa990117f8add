import Foundation
import Testing

@testable import Halley
@testable import HalleyHAL
@testable import HalleyTransport

/// `CurlRequester` over libcurls other than Linux's: the TLS library read from the version
/// line, the settings Secure Transport cannot honour refused by name, and its messages
/// classified as OpenSSL's are.
@Suite struct CurlTLSBackendTests {
    @Test(arguments: [
        // Debian's; macOS 14's own (LibreSSL in use, Secure Transport beside it).
        ("libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13 brotli/1.0.9 nghttp2/1.52.0", "openSSL"),
        ("libcurl/8.7.1 (SecureTransport) LibreSSL/3.3.6 zlib/1.2.12 nghttp2/1.61.0", "openSSL"),
        // The same with CURL_SSL_BACKEND=secure-transport, and an older macOS's.
        ("libcurl/8.7.1 SecureTransport (LibreSSL/3.3.6) zlib/1.2.12 nghttp2/1.61.0", "secureTransport"),
        ("libcurl/7.64.1 SecureTransport zlib/1.2.11", "secureTransport"),
        ("libcurl/8.5.0 GnuTLS/3.8.3 zlib/1.3", "other"),
        ("libcurl/8.5.0 zlib/1.3", "none"),
    ])
    func theBackendInUseIsReadFromTheVersionLine(line: String, expected: String) {
        let backend = CurlTLSBackend(versionLine: line)
        switch backend {
        case .openSSL: #expect(expected == "openSSL")
        case .secureTransport: #expect(expected == "secureTransport")
        case .other: #expect(expected == "other")
        case .none: #expect(expected == "none")
        }
    }

    @Test func secureTransportNamesEachSettingItCannotHonour() throws {
        var tls = TLSConfiguration(
            clientIdentity: .init(certificate: .file("client.pem"), key: .file("client.key")), minimumVersion: .tls13)
        tls = tls.dangerouslyTrustingAnyCertificate()
        let names = CurlTLSBackend.secureTransport.unsupportedSettings(of: tls)
        #expect(names.count == 3)
        #expect(names.contains { $0.hasPrefix("client identity from PEM") })
        #expect(names.contains { $0.hasPrefix("minimum TLS version (TLS 1.3") })
        #expect(names.contains { $0.hasPrefix("dangerouslyTrustingAnyCertificate") })
        // Trust roots and pins it honours (a bundle in memory, CURLOPT_PINNEDPUBLICKEY).
        let honoured = TLSConfiguration(
            trustRoots: .systemAnd([.file("ca.pem")]),
            pinnedKeys: [try .init("sha256//YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=")])
        #expect(CurlTLSBackend.secureTransport.unsupportedSettings(of: honoured).isEmpty)
        #expect(!CurlTLSBackend.secureTransport.searchesCADirectory)
    }

    @Test func openSSLAndItsForksHonourEverySetting() {
        let tls = TLSConfiguration(
            clientIdentity: .init(certificate: .file("client.pem")), minimumVersion: .tls13
        ).dangerouslyTrustingAnyCertificate()
        #expect(CurlTLSBackend(versionLine: "libcurl/8.7.1 LibreSSL/3.3.6").unsupportedSettings(of: tls).isEmpty)
        #expect(CurlTLSBackend(versionLine: "libcurl/7.88.1 OpenSSL/3.0.19").unsupportedSettings(of: tls).isEmpty)
    }

    /// libcurl's own words with Secure Transport (lib/vtls/sectransp.c), read as OpenSSL's are.
    @Test func secureTransportMessagesAreClassified() {
        #expect(
            TLSError.Kind.ofRefusedCertificate("SSL certificate problem: Certificate chain had an expired certificate")
                == .expiredCertificate)
        #expect(
            TLSError.Kind.ofRefusedCertificate(
                "SSL certificate problem: The certificate chain had a certificate that is not yet valid")
                == .expiredCertificate)
        #expect(
            TLSError.Kind.ofRefusedCertificate(
                #"SSL certificate peer verification failed, the certificate did not match "127.0.0.1""#)
                == .hostNameMismatch)
        #expect(
            TLSError.Kind.ofRefusedCertificate("SSL certificate problem: Untrusted root certificate")
                == .untrustedCertificate)
        #expect(
            TLSError.Kind.ofFailedHandshake(
                "SSL peer handshake failed, the server most likely requires a client certificate to connect")
                == .clientCertificateRequired)
        #expect(
            TLSError.Kind.ofFailedHandshake(
                "SSL server rejected the client certificate due to the certificate being signed by an unknown "
                    + "certificate authority") == .clientCertificateRequired)
        #expect(TLSError.Kind.ofFailedHandshake("A bad protocol version was encountered") == .protocolVersion)
        #expect(TLSError.Kind.ofFailedHandshake("Server aborted the SSL handshake") == nil)
    }

    /// OpenSSL's and LibreSSL's, as before.
    @Test func openSSLMessagesStayClassified() {
        #expect(
            TLSError.Kind.ofFailedHandshake("error:0A00045C:SSL routines::tlsv13 alert certificate required")
                == .clientCertificateRequired)
        #expect(
            TLSError.Kind.ofFailedHandshake("error:0A00042E:SSL routines::tlsv1 alert protocol version")
                == .protocolVersion)
        #expect(
            TLSError.Kind.ofRefusedCertificate(
                "SSL: no alternative certificate subject name matches target host name '127.0.0.1'")
                == .hostNameMismatch)
    }
}
