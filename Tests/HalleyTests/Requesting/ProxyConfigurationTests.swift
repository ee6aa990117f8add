import Foundation
import Testing

@testable import Halley
@testable import HalleyHAL
@testable import HalleyTransport

/// The rules of ``ProxyConfiguration``, without a network.
@Suite struct ProxyConfigurationTests {
    let http = URL(string: "http://api.example.com/x")!
    let https = URL(string: "https://api.example.com/x")!

    @Test func theEnvironmentIsReadAsCurlReadsIt() throws {
        // HTTP_PROXY in capitals is never read (httpoxy); the others fall back in order.
        let capitalsOnly = ProxyConfiguration.environment(["HTTP_PROXY": "http://evil:1"])
        #expect(try capitalsOnly.proxy(for: http) == nil)
        let environment = ProxyConfiguration.environment([
            "http_proxy": "plain:3128", "HTTPS_PROXY": "https://secure.example:8443", "ALL_PROXY": "http://all:1",
        ])
        #expect(try environment.proxy(for: http)?.description == "http://plain:3128")
        #expect(try environment.proxy(for: https)?.description == "https://secure.example:8443")
        let lowerWins = ProxyConfiguration.environment(["https_proxy": "a:1", "HTTPS_PROXY": "b:2"])
        #expect(try lowerWins.proxy(for: https)?.hostAndPort == "a:1")
        let all = ProxyConfiguration.environment(["all_proxy": "all:9", "http_proxy": ""])
        #expect(try all.proxy(for: http)?.hostAndPort == "all:9")
        #expect(try all.proxy(for: https)?.hostAndPort == "all:9")
        #expect(try all.proxy(for: URL(string: "ftp://example.com/")!) == nil)
        // Ports default as curl's: 1080 for http proxies, 443 for https ones.
        #expect(try ProxyConfiguration.environment(["http_proxy": "p"]).proxy(for: http)?.port == 1080)
        #expect(try ProxyConfiguration.environment(["https_proxy": "https://p"]).proxy(for: https)?.port == 443)
        #expect(try ProxyConfiguration.direct.proxy(for: https) == nil)
    }

    @Test func credentialsInTheURLAreDecodedAndNeverPrinted() throws {
        let proxy = ProxyConfiguration(url: URL(string: "http://svc%40corp:pa%3Ass@proxy:3128")!)
        let found = try #require(try proxy.proxy(for: http))
        #expect(found.credentials == .init(user: "svc@corp", password: "pa:ss"))
        #expect(found.description == "http://proxy:3128")
        #expect(!"\(proxy)".contains("pa%3Ass") && !"\(proxy)".contains("pa:ss"))
        #expect(!"\(found.credentials!)".contains("pa:ss"))
        let environment = ProxyConfiguration.environment(["https_proxy": "http://u:secret@p:1"])
        #expect(try environment.proxy(for: https)?.credentials?.password == "secret")
        #expect(!"\(environment)".contains("secret"))
    }

    @Test(arguments: [
        ("localhost", "localhost", true),
        ("example.com", "api.example.com", true),
        (".example.com", "example.com", true),
        ("example.com", "badexample.com", false),
        ("example.com:8080", "example.com", true),
        ("*", "anything.at.all", true),
        ("10.0.0.0/8", "10.1.2.3", true),
        ("10.0.0.0/8", "11.1.2.3", false),
        ("127.0.0.1", "127.0.0.1", true),
        ("127.0.0.1", "127.0.0.2", false),
        ("::1", "[::1]", true),
        ("fd00::/8", "fd12::1", true),
        ("fd00::/8", "fe80::1", false),
        ("API.Example.COM", "api.example.com.", true),
        (" a.com , b.com ", "b.com", true),
    ])
    func noProxyMatchesAsCurlDoes(entry: String, host: String, matches: Bool) {
        #expect(NoProxyList([entry]).matches(host) == matches, "\(entry) vs \(host)")
    }

    @Test func onlyCredentialHeadersInClearAreRefused() throws {
        let proxy = ProxyConfiguration(url: URL(string: "http://p:1")!)
        let route = try #require(try proxy.proxy(for: http))
        let names: Set<String> = ["authorization", "cookie", "proxy-authorization", "x-api-key"]
        func refusal(_ url: URL, _ headers: HeaderFields) -> ProxyError? {
            proxy.refusal(url: url, through: route, headers: headers, credentialHeaders: names)
        }
        #expect(refusal(http, ["Accept": "application/json"]) == nil)
        #expect(refusal(https, ["Authorization": "Bearer x"]) == nil, "a tunnel keeps them inside TLS")
        #expect(refusal(http, ["Proxy-Authorization": "Basic x"]) == nil, "that one is for the proxy")
        #expect(
            refusal(http, ["Cookie": "a", "X-Api-Key": "k"])?.reason
                == .credentialsInClear(headers: ["Cookie", "X-Api-Key"]))
    }
}
