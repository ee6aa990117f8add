import Foundation
import Halley
import NIOSSL

extension Halley.TLSConfiguration {
    /// The same settings as NIOSSL's configuration, for an `HTTPClient`: what
    /// `AsyncHTTPClientRequester(tls:...)` uses.
    ///
    /// Trust roots, the client identity and the minimum version map one to one. NIOSSL has no
    /// setting that pins a key, nor one that accepts any certificate chain while still checking
    /// the host name (its `.none` checks neither), so ``Halley/TLSConfiguration/pinnedKeys``
    /// and ``Halley/TLSConfiguration/dangerouslyTrustingAnyCertificate()`` are refused rather
    /// than dropped.
    ///
    /// ```swift
    /// var configuration = HTTPClient.Configuration()
    /// configuration.tlsConfiguration = try Halley.TLSConfiguration(trustRoots: .only([.file("ca.pem")]))
    ///     .nioSSLConfiguration()
    /// ```
    ///
    /// - Throws: `TLSConfigurationError` naming a file that is missing or not PEM, or a key
    ///   NIOSSL cannot read (a wrong passphrase); `UnsupportedSettingsError` for the settings
    ///   above.
    public func nioSSLConfiguration() throws -> NIOSSL.TLSConfiguration {
        try validate()
        var unsupported: [String] = []
        if !pinnedKeys.isEmpty { unsupported.append("pinned public keys") }
        if dangerouslySkipsCertificateVerification {
            unsupported.append("dangerouslyTrustingAnyCertificate (NIOSSL cannot skip the chain and check the name)")
        }
        guard unsupported.isEmpty else {
            throw UnsupportedSettingsError(
                requester: "AsyncHTTPClientRequester (NIOSSL)", settings: unsupported,
                advice: "use CurlRequester, or set HTTPClient.Configuration.tlsConfiguration yourself")
        }
        var nio = NIOSSL.TLSConfiguration.makeClientConfiguration()
        nio.certificateVerification = .fullVerification
        nio.minimumTLSVersion = minimumVersion == .tls13 ? .tlsv13 : .tlsv12
        switch trustRoots {
        case .system:
            nio.trustRoots = .default
        case .systemAnd(let sources):
            nio.trustRoots = .default
            nio.additionalTrustRoots = [.certificates(try Self.certificates(sources, role: .trustRoot))]
        case .only(let sources):
            nio.trustRoots = .certificates(try Self.certificates(sources, role: .trustRoot))
        }
        if let identity = clientIdentity {
            nio.certificateChain = try Self.certificates([identity.certificate], role: .clientCertificate)
                .map { .certificate($0) }
            let keySource = identity.key ?? identity.certificate
            // Always with a callback: without one BoringSSL asks for a passphrase on stdin.
            let passphrase = Array((identity.passphrase ?? "").utf8)
            do {
                let key = try NIOSSLPrivateKey(
                    bytes: Self.bytes(keySource, role: .clientKey), format: .pem,
                    passphraseCallback: { (setter: NIOSSLPassphraseSetter<[UInt8]>) in setter(passphrase) })
                nio.privateKey = .privateKey(key)
            } catch {
                throw TLSConfigurationError(
                    .clientIdentityRefused(
                        certificate: "\(identity.certificate)", key: "\(keySource)", detail: "\(error)"))
            }
        }
        return nio
    }

    /// Every certificate of the sources, in order.
    private static func certificates(_ sources: [PEMSource], role: TLSConfigurationError.Role) throws
        -> [NIOSSLCertificate]
    {
        var certificates: [NIOSSLCertificate] = []
        for source in sources {
            do {
                certificates += try NIOSSLCertificate.fromPEMBytes(bytes(source, role: role))
            } catch let error as TLSConfigurationError {
                throw error
            } catch {
                throw TLSConfigurationError(.notPEM(source: "\(source)", role: role, problem: "\(error)"))
            }
        }
        return certificates
    }

    /// A source's bytes (``validate()`` has read files already; this reads them again).
    private static func bytes(_ source: PEMSource, role: TLSConfigurationError.Role) throws -> [UInt8] {
        switch source {
        case .data(let data):
            return Array(data)
        case .file(let path):
            do {
                return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw TLSConfigurationError(
                    .unreadable(path: path, role: role, problem: error.localizedDescription))
            }
        }
    }
}
