import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// A proxy that is down is reported as the proxy's failure, within a second (issue #28).
@Suite struct ProxyDownTests {
    func request(_ url: URL) -> ResourceRequest { ResourceRequest(url: url, timeout: .seconds(10)) }

    /// A requester trusting the test CA, through `proxy`.
    func requester(_ proxy: ProxyConfiguration) async throws -> CurlRequester {
        let certificates = try await TLSLab.certificates()
        return try CurlRequester(
            tls: TLSConfiguration(trustRoots: .only([.file(certificates.path("ca.pem"))])), proxy: proxy)
    }

    @Test func aProxyThatIsDownSaysItWasTheProxy() async throws {
        let nginx = try await TLSLab.nginx()
        for proxy in [
            ProxyConfiguration(url: URL(string: "http://127.0.0.1:1")!),
            .environment(["https_proxy": "127.0.0.1:1"]),
            .environment(["HTTPS_PROXY": "http://127.0.0.1:1", "http_proxy": "http://127.0.0.1:2"]),
        ] {
            let url = nginx.https("/items/1")
            let failed = try await failure(of: request(url), with: try await requester(proxy))
            let error = try #require((failed.error as? TransportError)?.proxyError, "\(failed.error)")
            #expect(error.reason == .cannotConnect)
            #expect(error.proxy == "127.0.0.1:1")
            #expect(error.description.hasPrefix("could not connect to the proxy 127.0.0.1:1 for \(url.absoluteString)"))
            // At once, not after the request's timeout (TLSTests' margin for a loaded machine).
            #expect(failed.elapsed < TLSTests.limit)
        }
        // Through the manager: a transport error whose message names the proxy.
        let manager = ResourceManager(
            requester: try await requester(ProxyConfiguration(url: URL(string: "http://127.0.0.1:1")!)))
        do {
            _ = try await manager.resource(from: nginx.https("/root"))
            Issue.record("answered through a proxy that is down")
        } catch let error as HalleyError {
            #expect(error.code == .transport)
            #expect(error.message.contains("could not connect to the proxy 127.0.0.1:1 for https://"), "\(error)")
        }
    }
}
