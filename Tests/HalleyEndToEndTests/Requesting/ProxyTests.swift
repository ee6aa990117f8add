import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Requests through real proxies (tinyproxy, and a recording proxy that logs the bytes it
/// receives) to nginx (issue #28): the environment's rules, `NO_PROXY`, errors that name the
/// proxy, and credentials that go only where they belong.
@Suite struct ProxyTests {
    func request(_ url: URL, headers: HeaderFields = [:]) -> ResourceRequest {
        ResourceRequest(url: url, headers: headers, timeout: .seconds(10))
    }

    /// A requester trusting the test CA, through `proxy`.
    func requester(_ proxy: ProxyConfiguration) async throws -> CurlRequester {
        let certificates = try await TLSLab.certificates()
        return try CurlRequester(
            tls: TLSConfiguration(trustRoots: .only([.file(certificates.path("ca.pem"))])), proxy: proxy)
    }

    static func marker() -> String { "m\(UUID().uuidString.prefix(8))" }

    // MARK: Through the proxy

    @Test func httpsGoesThroughATunnelWithCredentialsInside() async throws {
        let nginx = try await TLSLab.nginx()
        let tinyproxy = try await TLSLab.proxy()
        let marker = Self.marker()
        let url = nginx.https("/items/1?\(marker)")
        let response = try await requester(ProxyConfiguration(url: tinyproxy.url()))
            .response(for: request(url, headers: ["Authorization": "Bearer \(marker)"]))
        #expect(response.status == 200)
        #expect(!(try await tinyproxy.requestLines(containing: "CONNECT localhost:\(nginx.tlsPort)")).isEmpty)
        // The proxy saw a tunnel only; the origin got the credentials, not the proxy's Via.
        let origin = try #require(try await nginx.logLines(containing: marker).first)
        #expect(origin.contains("auth=[Bearer \(marker)]") && origin.contains("via=[-]"), "\(origin)")
    }

    @Test func aProxySeesOnlyWhatIsForIt() async throws {
        // The recording proxy logs every byte it receives before the tunnel opens.
        let nginx = try await TLSLab.nginx()
        let hostile = try await TLSLab.hostile()
        let marker = Self.marker()
        let secret = "origin-secret-\(marker)"
        let proxy = ProxyConfiguration(url: try hostile.recorder(user: marker, password: "proxy-pw"))
        let response = try await requester(proxy).response(
            for: request(
                nginx.https("/items/2?\(marker)"),
                headers: ["Authorization": "Bearer \(secret)", "Cookie": "session=\(secret)"]))
        #expect(response.status == 200)

        let basic = Data("\(marker):proxy-pw".utf8).base64EncodedString()
        let heads = try hostile.recorded(containing: basic)
        let head = try #require(heads.first, "the proxy got no Proxy-Authorization")
        #expect(head.hasPrefix("CONNECT localhost:\(nginx.tlsPort) HTTP/1.1"), "\(head)")
        #expect(head.contains("Proxy-Authorization: Basic \(basic)"))
        #expect(!head.contains(secret) && !head.lowercased().contains("authorization: bearer"), "\(head)")
        #expect(try hostile.recorded(containing: secret).isEmpty)
        let origin = try #require(try await nginx.logLines(containing: marker).first)
        #expect(origin.contains("auth=[Bearer \(secret)]") && origin.contains("proxyauth=[-]"), "\(origin)")
    }

    @Test func aRequestsOwnProxyAuthorizationNeverReachesAnOrigin() async throws {
        let nginx = try await TLSLab.nginx()
        let hostile = try await TLSLab.hostile()
        let marker = Self.marker()
        let headers: HeaderFields = ["Proxy-Authorization": "Basic \(marker)"]

        // Direct: there is no proxy to take it, so nobody gets it.
        _ = try await requester(.direct).response(
            for: request(nginx.http("/items/1?\(marker)-direct"), headers: headers))
        let direct = try #require(try await nginx.logLines(containing: "\(marker)-direct").first)
        #expect(direct.contains("proxyauth=[-]"), "\(direct)")

        // Through a proxy: the proxy gets it, the origin does not.
        let proxy = ProxyConfiguration(url: try hostile.recorder())
        _ = try await requester(proxy).response(
            for: request(nginx.https("/items/1?\(marker)-tunnel"), headers: headers))
        #expect(try hostile.recorded(containing: "Proxy-Authorization: Basic \(marker)").count == 1)
        let tunnelled = try #require(try await nginx.logLines(containing: "\(marker)-tunnel").first)
        #expect(tunnelled.contains("proxyauth=[-]"), "\(tunnelled)")
    }

    @Test func plainHTTPGoesThroughTheProxy() async throws {
        let nginx = try await TLSLab.nginx()
        let tinyproxy = try await TLSLab.proxy()
        let marker = Self.marker()
        let url = nginx.http("/items/2?\(marker)")
        let response = try await requester(ProxyConfiguration(url: tinyproxy.url())).response(for: request(url))
        #expect(response.status == 200)
        #expect(try await tinyproxy.requestLines(containing: "GET \(url.absoluteString) HTTP/1.1").count == 1)
        let origin = try #require(try await nginx.logLines(containing: marker).first)
        #expect(origin.contains("tinyproxy"), "the origin saw the proxy's Via: \(origin)")
    }

    @Test func plainHTTPWithCredentialsIsRefusedBeforeSending() async throws {
        let nginx = try await TLSLab.nginx()
        let tinyproxy = try await TLSLab.proxy()
        let marker = Self.marker()
        let url = nginx.http("/items/1?\(marker)")
        let proxy = ProxyConfiguration(url: tinyproxy.url())
        let failed = try await failure(
            of: request(url, headers: ["Authorization": "Bearer \(marker)", "Accept": "application/hal+json"]),
            with: try await requester(proxy))
        let error = try #require((failed.error as? TransportError)?.proxyError, "\(failed.error)")
        #expect(error.reason == .credentialsInClear(headers: ["Authorization"]))
        #expect(
            error.description
                == "refusing to send Authorization in clear through the proxy 127.0.0.1:\(tinyproxy.port) for "
                + "\(url.absoluteString); use https, or leave the host out of the proxy with NO_PROXY")
        #expect(try await tinyproxy.requestLines(containing: marker, count: 0).isEmpty)
        #expect(try await nginx.logLines(containing: marker, count: 0).isEmpty)

        // The call's own credential headers count too.
        var custom = request(url, headers: ["X-Api-Key": marker])
        custom.credentialHeaders = ["x-api-key"]
        let refused = try await failure(of: custom, with: try await requester(proxy))
        #expect((refused.error as? TransportError)?.proxyError?.reason == .credentialsInClear(headers: ["X-Api-Key"]))

        // Opting in sends them.
        var allowing = proxy
        allowing.allowsCredentialsOverPlainHTTP = true
        let response = try await requester(allowing).response(
            for: request(nginx.http("/items/1?\(marker)-allowed"), headers: ["Authorization": "Bearer \(marker)"]))
        #expect(response.status == 200)
        #expect(
            try await nginx.logLines(containing: "\(marker)-allowed").first?.contains("auth=[Bearer \(marker)]") == true
        )
    }

    // MARK: NO_PROXY and the environment

    @Test func noProxyHostsGoDirect() async throws {
        let nginx = try await TLSLab.nginx()
        let tinyproxy = try await TLSLab.proxy()
        let marker = Self.marker()
        let configurations: [ProxyConfiguration] = [
            ProxyConfiguration(url: tinyproxy.url(), noProxy: ["example.com", "127.0.0.1"]),
            ProxyConfiguration(url: tinyproxy.url(), noProxy: ["10.0.0.0/8,127.0.0.0/8"]),
            .environment(["http_proxy": tinyproxy.url().absoluteString, "NO_PROXY": "localhost, 127.0.0.1"]),
            .environment(["all_proxy": tinyproxy.url().absoluteString, "no_proxy": "*"]),
        ]
        for (index, proxy) in configurations.enumerated() {
            let url = nginx.http("/items/1?\(marker)-\(index)")
            #expect(try await requester(proxy).response(for: request(url)).status == 200)
            let origin = try #require(try await nginx.logLines(containing: "\(marker)-\(index)").first)
            #expect(origin.contains("via=[-]"), "\(proxy): \(origin)")
        }
        #expect(try await tinyproxy.requestLines(containing: marker, count: 0).isEmpty)

        // Without the exception, the same request goes through the proxy.
        let through = ProxyConfiguration.environment([
            "http_proxy": tinyproxy.url().absoluteString, "NO_PROXY": "localhost",
        ])
        _ = try await requester(through).response(for: request(nginx.http("/items/1?\(marker)-through")))
        #expect(try await tinyproxy.requestLines(containing: "\(marker)-through").count == 1)
    }

    // MARK: Failures

    @Test func aProxyURLThatIsNotOneIsReported() async throws {
        let proxy = ProxyConfiguration.environment(["https_proxy": "ftp://user:hunter2@proxy:21"])
        let failed = try await failure(
            of: request(URL(string: "https://localhost:1/")!), with: try await requester(proxy))
        let error = try #require((failed.error as? TransportError)?.proxyError, "\(failed.error)")
        #expect(error.reason == .invalidProxyURL("https_proxy=ftp://<redacted>@proxy:21"))
        #expect(!error.description.contains("hunter2"), "\(error)")
        // A plain http URL is not affected by a bad https_proxy.
        #expect(try proxy.proxy(for: URL(string: "http://localhost/")!) == nil)
    }

    @Test func anAuthenticatingProxyGetsItsCredentials() async throws {
        let nginx = try await TLSLab.nginx()
        let tinyproxy = try await TLSLab.proxy(authenticated: true)
        let marker = Self.marker()
        let anonymous = try await requester(ProxyConfiguration(url: tinyproxy.url()))
        for url in [nginx.https("/items/1?\(marker)"), nginx.http("/items/1?\(marker)")] {
            let failed = try await failure(of: request(url), with: anonymous)
            let error = try #require((failed.error as? TransportError)?.proxyError, "\(failed.error)")
            #expect(error.reason == .authenticationRequired, "\(url)")
            #expect(error.description.hasPrefix("the proxy 127.0.0.1:\(tinyproxy.port) requires credentials for "))
        }
        for configuration in [
            ProxyConfiguration(url: tinyproxy.url(withCredentials: true)),
            ProxyConfiguration(
                url: tinyproxy.url(), credentials: .init(user: TLSLab.proxyUser, password: TLSLab.proxyPassword)),
        ] {
            let authenticated = try await requester(configuration)
            #expect(try await authenticated.response(for: request(nginx.https("/items/2?\(marker)-s"))).status == 200)
            #expect(try await authenticated.response(for: request(nginx.http("/items/2?\(marker)-p"))).status == 200)
        }
        // The proxy's credentials stay with the proxy.
        let lines = try await nginx.logLines(containing: "\(marker)-", count: 4)
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0.contains("proxyauth=[-]") && $0.contains("auth=[-]") }, "\(lines)")
    }

    @Test func urlSessionOnLinuxRefusesAProxyItCannotUse() async throws {
        #if canImport(FoundationNetworking)
            let requester = URLSessionRequester(proxy: ProxyConfiguration(url: URL(string: "http://127.0.0.1:3128")!))
            let failed = try await failure(of: request(URL(string: "https://127.0.0.1:1/")!), with: requester)
            let error = try #require(failed.error as? UnsupportedSettingsError, "\(failed.error)")
            #expect(
                error.settings == [
                    "a proxy other than the environment's (ProxyConfiguration(http: http://127.0.0.1:3128, https: http://127.0.0.1:3128))"
                ])
            // The process's own environment is what FoundationNetworking follows: no error.
            let own = try await failure(
                of: request(URL(string: "https://127.0.0.1:1/")!),
                with: URLSessionRequester(proxy: .environment(ProcessInfo.processInfo.environment)))
            #expect(!(own.error is UnsupportedSettingsError), "\(own.error)")
        #endif
    }
}
