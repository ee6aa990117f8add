import AsyncHTTPClient
import Foundation
import Halley
import HalleyServerSide
import Testing

/// Halley's ``Halley/TLSConfiguration`` mapped onto NIOSSL for ``AsyncHTTPClientRequester``:
/// the same settings reach the same servers as with `CurlRequester` (issue #28), and the
/// settings NIOSSL cannot honour are refused rather than dropped.
@Suite struct TLSThroughAsyncHTTPClientTests {
    /// One GET, then the requester's client is shut down.
    func get(_ url: URL, with requester: AsyncHTTPClientRequester) async throws -> ResourceResponse {
        do {
            let response = try await requester.response(for: ResourceRequest(url: url, timeout: .seconds(10)))
            try await requester.shutdown()
            return response
        } catch {
            try? await requester.shutdown()
            throw error
        }
    }

    @Test func aPrivateCAAndAClientCertificateReachTheServers() async throws {
        let servers = try await HostileTLSServers.shared()
        let roots = Halley.TLSConfiguration.TrustRoots.only([.file(servers.path("ca.pem"))])
        let trusting = try AsyncHTTPClientRequester(tls: Halley.TLSConfiguration(trustRoots: roots))
        #expect(try await get(servers.url("tls12"), with: trusting).status == 200)

        let identity = Halley.TLSConfiguration.ClientIdentity(
            certificate: .file(servers.path("client.pem")), key: .file(servers.path("client-encrypted.key")),
            passphrase: "s3cret")
        let mutual = try AsyncHTTPClientRequester(
            tls: Halley.TLSConfiguration(trustRoots: roots, clientIdentity: identity))
        #expect(try await get(servers.url("mtls"), with: mutual).status == 200)
    }

    @Test func refusedCertificatesAreTLSErrorsAtOnce() async throws {
        let servers = try await HostileTLSServers.shared()
        // AsyncHTTPClient retries a failed connection, a refused certificate included, until
        // the request's deadline unless told not to.
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        let roots = Halley.TLSConfiguration.TrustRoots.only([.file(servers.path("ca.pem"))])
        let cases: [(URL, Halley.TLSConfiguration, TLSError.Kind)] = [
            (servers.url("tls12"), .system, .untrustedCertificate),
            (servers.url("self-signed"), Halley.TLSConfiguration(trustRoots: roots), .untrustedCertificate),
            (
                servers.url("wrong-name", host: "127.0.0.1"), Halley.TLSConfiguration(trustRoots: roots),
                .hostNameMismatch
            ),
        ]
        for (url, tls, kind) in cases {
            let requester = try AsyncHTTPClientRequester(tls: tls, configuration: configuration)
            let start = ContinuousClock.now
            do {
                _ = try await get(url, with: requester)
                Issue.record("\(url) was trusted")
            } catch let error as TransportError {
                // The code Halley's own requesters give for the same certificate.
                #expect(error.code == TransportError.Code(kind), "\(error)")
                #expect(error.tlsError?.kind == kind, "\(error)")
                #expect(error.host == url.host)
            }
            #expect(ContinuousClock.now - start < .seconds(1))
        }
    }

    @Test func theMappingIsOneToOne() throws {
        var tls = Halley.TLSConfiguration(minimumVersion: .tls13)
        var nio = try tls.nioSSLConfiguration()
        #expect(nio.minimumTLSVersion == .tlsv13)
        #expect(nio.certificateVerification == .fullVerification)
        tls.minimumVersion = .tls12
        nio = try tls.nioSSLConfiguration()
        #expect(nio.minimumTLSVersion == .tlsv12)
        #expect(nio.privateKey == nil && nio.certificateChain.isEmpty)
    }

    @Test func settingsNIOSSLCannotHonourAreRefused() throws {
        let pinned = Halley.TLSConfiguration(pinnedKeys: [try .init(sha256: Data(repeating: 1, count: 32))])
        #expect(throws: UnsupportedSettingsError.self) { try pinned.nioSSLConfiguration() }
        #expect(throws: UnsupportedSettingsError.self) {
            try Halley.TLSConfiguration.system.dangerouslyTrustingAnyCertificate().nioSSLConfiguration()
        }
        do {
            _ = try AsyncHTTPClientRequester(
                tls: Halley.TLSConfiguration(
                    clientIdentity: .init(certificate: .file("/nonexistent/client.pem"), key: .file("client.key"))))
            Issue.record("a missing certificate file was accepted")
        } catch let error as TLSConfigurationError {
            #expect(error.description.contains("/nonexistent/client.pem"))
        }
    }
}
