// swift-format-ignore-file
// TLSAndProxies.md's Swift blocks, verbatim between `// snippet` and `// end snippet`
// (SnippetSyncTests holds them to the article). Compiled, not run: they name files of the
// reader's machine. HalleyTests' TLSTests and ProxyTests run the same settings against nginx
// and tinyproxy.
import Foundation
import Halley

// CurlRequester is macOS's and Linux's: libcurl is not part of the other Apple platforms.
@available(iOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
func tlsOverview() throws -> ResourceManager {
    // snippet TLSAndProxies.md "Overview"
    var tls = TLSConfiguration()
    tls.trustRoots = .systemAnd([.file("/etc/myapp/private-ca.pem")])
    tls.clientIdentity = .init(certificate: .file("/etc/myapp/client.pem"), key: .file("/etc/myapp/client.key"))
    let proxy = ProxyConfiguration(url: URL(string: "http://proxy.internal:3128")!, noProxy: [".internal"])
    let manager = ResourceManager(requester: try CurlRequester(tls: tls, proxy: proxy))
    // end snippet
    return manager
}

func tlsTrustRoots() throws -> TLSConfiguration {
    // snippet TLSAndProxies.md "Trust roots"
    let pem = try Data(contentsOf: URL(fileURLWithPath: "/run/secrets/ca.pem"))
    let onlyOurs = TLSConfiguration(trustRoots: .only([.data(pem)]))
    // end snippet
    return onlyOurs
}

func tlsClientIdentity() -> TLSConfiguration {
    // snippet TLSAndProxies.md "Client certificates"
    let identity = TLSConfiguration.ClientIdentity(
        certificate: .file("/etc/myapp/client.pem"), key: .file("/etc/myapp/client.key"),
        passphrase: ProcessInfo.processInfo.environment["CLIENT_KEY_PASSPHRASE"])
    let mutual = TLSConfiguration(trustRoots: .only([.file("/etc/myapp/private-ca.pem")]), clientIdentity: identity)
    // end snippet
    return mutual
}

func tlsPinned() throws -> TLSConfiguration {
    // snippet TLSAndProxies.md "Pinned keys"
    var pinned = TLSConfiguration()
    pinned.pinnedKeys = [try .init("sha256//YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=")]
    pinned.minimumVersion = .tls13
    // end snippet
    return pinned
}

func tlsValidate(mutual: TLSConfiguration) {
    // snippet TLSAndProxies.md "Checking early"
    do {
        try mutual.validate()
    } catch {
        print(error)   // the client key /etc/myapp/client.key holds no PEM private key (no BEGIN ... PRIVATE KEY block)
    }
    // end snippet
}

// CurlRequester is macOS's and Linux's: libcurl is not part of the other Apple platforms.
@available(iOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
func tlsProxy() throws -> CurlRequester {
    // snippet TLSAndProxies.md "Proxies"
    let corporate = ProxyConfiguration(
        url: URL(string: "http://proxy.internal:3128")!,
        credentials: .init(user: "svc-orders", password: ProcessInfo.processInfo.environment["PROXY_PASSWORD"] ?? ""),
        noProxy: ["localhost", ".internal", "10.0.0.0/8"])
    let throughProxy = try CurlRequester(proxy: corporate)
    // end snippet
    return throughProxy
}
