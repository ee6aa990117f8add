import Foundation
import Testing

@testable import Halley
@testable import HalleyHAL
@testable import HalleyTransport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The decisions `URLSessionRequester` makes on Apple platforms, compiled and run on Linux:
/// they use only names FoundationNetworking declares too. (The Security calls around them are
/// type-checked by Tools/AppleStandIns; running them needs a Mac.)
@Suite struct URLSessionAppleBehaviourTests {
    // MARK: Challenges other than server trust

    @Test func anOriginsChallengeIsRejectedSoThe401ComesBack() {
        let (disposition, credential) = ChallengeAnswer.disposition(
            isProxy: false, previousFailureCount: 0, proxyCredentials: nil, handling: .returnResponse)
        // Not .performDefaultHandling (which may answer from the system's credential storage)
        // nor .cancelAuthenticationChallenge (which fails the task instead of returning the 401).
        #expect(disposition == .rejectProtectionSpace)
        #expect(credential == nil)
    }

    @Test func anOriginsChallengeGetsTheSystemsDefaultHandlingOnlyWhenAskedFor() {
        let (disposition, credential) = ChallengeAnswer.disposition(
            isProxy: false, previousFailureCount: 0, proxyCredentials: nil, handling: .systemDefault)
        #expect(disposition == .performDefaultHandling)
        #expect(credential == nil)
    }

    @Test func theProxysCredentialsAnswerItsFirstChallengeOnly() {
        let credentials = ProxyConfiguration.Credentials(user: "svc", password: "s3cret")
        let first = ChallengeAnswer.disposition(
            isProxy: true, previousFailureCount: 0, proxyCredentials: credentials, handling: .returnResponse)
        #expect(first.0 == .useCredential)
        #expect(first.1?.user == "svc")
        #expect(first.1?.password == "s3cret")
        // Refused once: the 407 comes back (ProxyError.authenticationRequired), no second try.
        let again = ChallengeAnswer.disposition(
            isProxy: true, previousFailureCount: 1, proxyCredentials: credentials, handling: .returnResponse)
        #expect(again.0 == .rejectProtectionSpace)
        #expect(again.1 == nil)
        // An origin never gets the proxy's credentials.
        let origin = ChallengeAnswer.disposition(
            isProxy: false, previousFailureCount: 0, proxyCredentials: credentials, handling: .returnResponse)
        #expect(origin.0 == .rejectProtectionSpace)
        #expect(origin.1 == nil)
    }

    // MARK: Proxy settings

    @Test func proxySettingsUseTheKeysIOSHonours() throws {
        let proxy = ProxyConfiguration(
            url: try #require(URL(string: "http://proxy.internal:3128")), noProxy: ["localhost", ".internal"]
        ).resolved()
        guard case .rules(let rules) = proxy.source else {
            Issue.record("an explicit proxy resolves to rules")
            return
        }
        let dictionary = try #require(SessionSecurity.proxyDictionary(rules))
        // The strings behind kCFNetworkProxiesHTTP…/HTTPS… (the HTTPS constants' names are
        // macOS-only; iOS reads the same strings).
        #expect(dictionary["HTTPEnable"] as? Int == 1)
        #expect(dictionary["HTTPProxy"] as? String == "proxy.internal")
        #expect(dictionary["HTTPPort"] as? Int == 3128)
        #expect(dictionary["HTTPSEnable"] as? Int == 1)
        #expect(dictionary["HTTPSProxy"] as? String == "proxy.internal")
        #expect(dictionary["HTTPSPort"] as? Int == 3128)
        #expect(dictionary["ExceptionsList"] as? [String] == ["localhost", "*.localhost", "internal", "*.internal"])
    }

    @Test func anAppleSessionTakesTheProxyAndNamesWhatItCannotHonour() throws {
        var security = SessionSecurity(tls: .system, proxy: .direct, configuration: .ephemeral)
        let configuration = URLSessionConfiguration.ephemeral
        let proxy = ProxyConfiguration(
            url: try #require(URL(string: "https://svc:s3cret@proxy.internal:8443")), noProxy: []
        ).resolved()
        let tls = TLSConfiguration(clientIdentity: .init(certificate: .file("client.pem")))

        let unsupported = security.applySettings(tls: tls, proxy: proxy, to: configuration)

        #expect(
            unsupported == [
                "client identity from PEM (URLSession takes identities from the keychain)", "an https:// proxy",
            ])
        #expect(configuration.connectionProxyDictionary?["HTTPSProxy"] as? String == "proxy.internal")
        #expect(security.proxyCredentials?.user == "svc")
    }

    @Test func noProxyVariableKeepsTheSystemsSettings() {
        guard case .rules(let rules) = ProxyConfiguration.environment.resolved([:]).source else {
            Issue.record("the environment resolves to rules")
            return
        }
        #expect(SessionSecurity.proxyDictionary(rules) == nil)
    }

    // MARK: Metrics in curl's terms

    @Test func alpnNamesReadAsHTTPVersions() {
        #expect(TransferMetrics.httpVersion(protocolName: "http/1.1") == "HTTP/1.1")
        #expect(TransferMetrics.httpVersion(protocolName: "http/1.0") == "HTTP/1.0")
        #expect(TransferMetrics.httpVersion(protocolName: "h2") == "HTTP/2")
        #expect(TransferMetrics.httpVersion(protocolName: "h3") == "HTTP/3")
        #expect(TransferMetrics.httpVersion(protocolName: "h3-29") == "HTTP/3")
        #expect(TransferMetrics.httpVersion(protocolName: nil) == nil)
    }

    @Test func tlsVersionsReadAsLibcurlNamesThem() {
        #expect(TransferMetrics.tlsVersion(.TLSv12) == "TLSv1.2")
        #expect(TransferMetrics.tlsVersion(.TLSv13) == "TLSv1.3")
    }

    @Test func portsReadFromEitherFoundation() {
        #expect(TransferMetrics.portNumber(8443 as Int?) == 8443)
        #expect(TransferMetrics.portNumber("8443" as String?) == 8443)
        #expect(TransferMetrics.portNumber(nil as String?) == nil)
    }
}
